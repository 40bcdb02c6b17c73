import type { Logger } from "@winnow/platform";
import { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

interface LimiterSpec {
  /** Names what is counted; part of every stored key. */
  name: string;
  points: number;
  durationSeconds: number;
}

/**
 * Makes rate limiters: in this process's memory, or in Redis so that every
 * gateway replica shares one count. With Redis each limiter has an in-memory
 * insurance limiter with the same limits: while Redis is unreachable requests
 * are counted per replica instead of failing (the limit is then N replicas
 * times the plan's), and the outage is logged once per disconnection.
 */
export interface LimiterFactory {
  create(spec: LimiterSpec): RateLimiterAbstract;
  /** The Redis connection the limiters use, when REDIS_URL is set; others (the scrape cache) share it. */
  readonly redis?: Redis;
  close(): Promise<void>;
}

export interface LimiterFactoryOptions {
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so deployments (and test runs) sharing a Redis do not share counts. */
  keyPrefix: string;
  logger: Logger;
}

export function createLimiterFactory({ redisUrl, keyPrefix, logger }: LimiterFactoryOptions): LimiterFactory {
  if (!redisUrl) {
    return { create: (spec) => memoryLimiter(spec), close: async () => {} };
  }
  // No offline queue: while Redis is down a command fails at once (and the
  // insurance limiter answers) instead of waiting for a reconnection.
  const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  let up = true;
  redis.on("error", (error: Error) => {
    if (!up) return;
    up = false;
    logger.warn({ err: error }, "Redis unavailable: rate limits are counted per gateway replica until it is back");
  });
  redis.on("ready", () => {
    if (up) return;
    up = true;
    logger.info("Redis available again: rate limits are shared across replicas");
  });
  return {
    redis,
    create: (spec) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${keyPrefix}${spec.name}`,
        points: spec.points,
        duration: spec.durationSeconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memoryLimiter(spec),
      }),
    async close() {
      redis.disconnect();
    },
  };
}

function memoryLimiter(spec: LimiterSpec): RateLimiterMemory {
  return new RateLimiterMemory({ keyPrefix: spec.name, points: spec.points, duration: spec.durationSeconds });
}

export interface RateLimitState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets (and, when refused, until a retry can succeed). */
  resetMs: number;
  /** The same, in whole seconds (at least 1), for headers. */
  resetSeconds: number;
}

/** Takes a point for `key`; `allowed` is false when none was left. Store failures (without insurance) throw. */
export async function takePoint(limiter: RateLimiterAbstract, key: string): Promise<RateLimitState> {
  let result: RateLimiterRes;
  let allowed = true;
  try {
    result = await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    result = rejection;
    allowed = false;
  }
  return {
    allowed,
    limit: limiter.points,
    remaining: Math.max(0, result.remainingPoints),
    resetMs: result.msBeforeNext,
    resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}

/** One limiter per distinct point count (plans differ), made on first use. */
export class LimiterPool {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    private readonly factory: LimiterFactory,
    private readonly name: string,
    private readonly durationSeconds: number,
  ) {}

  get(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = this.factory.create({ name: `${this.name}:${points}:`, points, durationSeconds: this.durationSeconds });
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

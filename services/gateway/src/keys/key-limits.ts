import { type Logger, WinnowError } from "@winnow/platform";
import type { PlanLimits } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { RequestHandler } from "express";
import { countRateLimited } from "../http/gateway-metrics.js";
import { type LimiterFactory, LimiterPool, type RateLimitState, takePoint } from "../http/rate-limits.js";

/** What a key's plan allows. */
export type KeyPlan = Pick<PlanLimits, "requestsPerMinute" | "maxConcurrentScrapes">;

/**
 * Per-key limits from the key's plan (as ValidateKey reported it, so they
 * follow plan changes without a gateway restart): requests per minute, and
 * scrapes in flight. Run after requireApiKey.
 */
export class KeyLimits {
  private readonly perMinute: LimiterPool;
  private readonly inFlight: LimiterPool;

  /**
   * `leaseSeconds` bounds how long a slot stays taken when its release is
   * lost (a replica killed mid-scrape); it must outlast any scrape, so twice
   * the request timeout.
   */
  constructor(
    factory: LimiterFactory,
    leaseSeconds: number,
    private readonly logger: Logger,
  ) {
    this.perMinute = new LimiterPool(factory, "rpm", 60);
    this.inFlight = new LimiterPool(factory, "inflight", leaseSeconds);
  }

  /** Takes one of the key's requests for this minute (`allowed` false when none is left). */
  takeRequest(keyId: string, limits: KeyPlan): Promise<RateLimitState> {
    return takePoint(this.perMinute.get(limits.requestsPerMinute), keyId);
  }

  /**
   * Takes one of the key's scrape slots: resolves to the function that gives
   * it back, or to undefined when the plan's slots are all in use.
   */
  async takeSlot(keyId: string, limits: KeyPlan): Promise<(() => void) | undefined> {
    const limiter = this.inFlight.get(limits.maxConcurrentScrapes);
    const taken = await takePoint(limiter, keyId);
    if (!taken.allowed) {
      // A refused take still counted; give it back so only running scrapes hold slots.
      await limiter.reward(keyId, 1);
      return undefined;
    }
    // The count lives in a window of leaseSeconds; once it has reset, this slot is no longer
    // counted, and giving it back would hand out one slot too many.
    const windowEndsAt = Date.now() + taken.resetMs;
    let released = false;
    return () => {
      if (released || Date.now() >= windowEndsAt) return;
      released = true;
      limiter
        .reward(keyId, 1)
        .catch((error: unknown) => this.logger.warn({ err: error, keyId }, "could not release a scrape slot"));
    };
  }

  /** Counts the request against the key's requests per minute; sets the RateLimit-* headers. */
  requests(): RequestHandler {
    return async (_req, res, next) => {
      const state = await this.takeRequest(res.locals.keyId!, res.locals.limits!);
      res.setHeader("RateLimit-Limit", String(state.limit));
      res.setHeader("RateLimit-Remaining", String(state.remaining));
      res.setHeader("RateLimit-Reset", String(state.resetSeconds));
      if (!state.allowed) {
        countRateLimited("requests_per_minute");
        throw new WinnowError("rate-limited", `This key has used its ${state.limit} requests for this minute.`, {
          retryAfterMs: state.resetSeconds * 1000,
        });
      }
      next();
    };
  }

  /** Holds one of the key's scrape slots until the response is done (or the caller has gone). */
  scrapeSlot(): RequestHandler {
    return async (_req, res, next) => {
      const limits = res.locals.limits!;
      const release = await this.takeSlot(res.locals.keyId!, limits);
      if (!release) {
        countRateLimited("concurrent_scrapes");
        throw new WinnowError(
          "rate-limited",
          `This key already has ${limits.maxConcurrentScrapes} scrapes in flight, the most its plan allows; wait for one to finish.`,
          { retryAfterMs: 1_000 },
        );
      }
      res.once("close", release);
      next();
    };
  }
}

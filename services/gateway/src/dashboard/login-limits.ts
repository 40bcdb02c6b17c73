import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { type LimiterFactory, takePoint } from "../http/rate-limits.js";

const WINDOW_SECONDS = 15 * 60;
/**
 * How long an email's failures and blocks are remembered: a day, so that
 * spacing guesses out (a few every 15 minutes) does not avoid the block.
 */
const MEMORY_SECONDS = 24 * 60 * 60;

export interface LoginLimitsOptions {
  /**
   * Consecutive failures per email (within a day) before it is blocked; ten times that is the attempts per
   * address in 15 minutes.
   */
  failures: number;
  /** The first block of an email; each further block within a day doubles it, up to maxBlockSeconds. */
  firstBlockSeconds?: number;
  maxBlockSeconds?: number;
}

/** A refused attempt: why, and when to come back. */
export interface LoginRefusal {
  by: "account" | "address";
  retryAfterSeconds: number;
}

/**
 * The dashboard's limits on log-ins and sign-ups, two of them:
 *
 * - per account (the normalised email), whatever address the attempt comes
 *   from, so rotating addresses (or spoofing X-Forwarded-For) gains nothing:
 *   `failures` consecutive failures (within a day) block the email for 15 minutes, each
 *   further block within a day twice as long (up to 4 hours); a success
 *   clears both counts.
 * - per client address, every attempt, ten times `failures` per 15 minutes.
 *   It is only as good as the address: the client's on direct connections or
 *   with TRUST_PROXY naming the proxies in front, the proxy's otherwise, and
 *   then one busy address would lock everyone out.
 */
export class LoginLimits {
  private readonly failures: RateLimiterAbstract;
  private readonly blocks: RateLimiterAbstract;
  private readonly perAddress: RateLimiterAbstract;
  private readonly firstBlockSeconds: number;
  private readonly maxBlockSeconds: number;

  constructor(
    factory: LimiterFactory,
    { failures, firstBlockSeconds = WINDOW_SECONDS, maxBlockSeconds = 4 * 60 * 60 }: LoginLimitsOptions,
  ) {
    this.firstBlockSeconds = firstBlockSeconds;
    this.maxBlockSeconds = maxBlockSeconds;
    this.failures = factory.create({ name: "login-fails:", points: failures, durationSeconds: MEMORY_SECONDS });
    this.blocks = factory.create({ name: "login-blocks:", points: 1, durationSeconds: MEMORY_SECONDS });
    this.perAddress = factory.create({ name: "login-ip:", points: failures * 10, durationSeconds: WINDOW_SECONDS });
  }

  /** Counts an attempt from `address` for `email`; a refusal when either limit is reached. */
  async attempt(address: string, email: string): Promise<LoginRefusal | undefined> {
    // Reading the email's count takes nothing, so a refused address does not use up the account's attempts.
    const account = await this.failures.get(email);
    if (account && account.consumedPoints >= this.failures.points) {
      return { by: "account", retryAfterSeconds: seconds(account.msBeforeNext) };
    }
    const byAddress = await takePoint(this.perAddress, address);
    return byAddress.allowed ? undefined : { by: "address", retryAfterSeconds: byAddress.resetSeconds };
  }

  /** A wrong password (or a sign-up for a taken email): the last allowed failure blocks the email, longer each time. */
  async failed(email: string): Promise<void> {
    const count = await this.failures.penalty(email, 1);
    if (count.consumedPoints < this.failures.points) return;
    const blocked = await this.blocks.penalty(email, 1);
    const blockSeconds = Math.min(this.firstBlockSeconds * 2 ** (blocked.consumedPoints - 1), this.maxBlockSeconds);
    await this.failures.block(email, blockSeconds);
  }

  async succeeded(email: string): Promise<void> {
    await Promise.all([this.failures.delete(email), this.blocks.delete(email)]);
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

import { WinnowError } from "@winnow/platform";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { countRateLimited } from "../http/gateway-metrics.js";
import type { LimiterFactory } from "../http/rate-limits.js";

/**
 * Failed API-key checks per client address and minute. Past the limit the
 * address gets 429 before auth is asked, so guessing keys (or flooding auth
 * with lookups) costs the guesser, not auth; valid keys never count. Like
 * every per-address limit it is only as good as the address (see TRUST_PROXY).
 */
export class KeyFailureLimit {
  private readonly failures: RateLimiterAbstract;

  constructor(factory: LimiterFactory, perMinute: number) {
    this.failures = factory.create({ name: "key-fails:", points: perMinute, durationSeconds: 60 });
  }

  /** Throws rate-limited when `address` has used up its failures for this minute. */
  async check(address: string): Promise<void> {
    const state = await this.failures.get(address);
    if (!state || state.consumedPoints < this.failures.points) return;
    countRateLimited("failed_key_checks");
    throw new WinnowError(
      "rate-limited",
      `Too many requests with invalid API keys from this address; at most ${this.failures.points} a minute.`,
      { retryAfterMs: state.msBeforeNext },
    );
  }

  async failed(address: string): Promise<void> {
    await this.failures.penalty(address, 1);
  }
}

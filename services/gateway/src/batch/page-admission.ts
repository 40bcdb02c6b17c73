import type { CallOptions } from "@winnow/platform";
import { LRUCache } from "lru-cache";
import type { KeyCheck } from "../keys/key-check.js";
import type { KeyLimits } from "../keys/key-limits.js";

/** How long a page waits, on average, before asking again for a scrape slot its key has none of. */
const SLOT_WAIT_MS = 250;
/** Spreads the pages that wait for the same minute to reset, so that they do not all come back at once. */
const MINUTE_SPREAD_MS = 1_000;
const MINUTE_MS = 60_000;
/** Keys whose waiting pages are counted at once (past it the least recent key's count starts again). */
const COUNTED_KEYS = 10_000;

/** Whether a page may run now: its slot's release, a wait, or its key revoked. */
export type Admission = { release: () => void } | { laterMs: number; line?: boolean } | { revoked: true };

/**
 * Lets a batch page run under its job's key as that key is now: still valid
 * (a refresh or revocation stops its jobs), with its plan's current limits:
 * one of its scrape slots and one of its requests for the minute. A page
 * that cannot have them is told when to come back instead of waiting, so
 * that one throttled key does not hold the workers other keys' pages need.
 */
export class PageAdmission {
  /**
   * Pages of each key told to wait for its minute to reset, counted per minute: the n-th waits n ÷ the key's
   * requests a minute more minutes, so that a throttled backlog comes back a minute's requests at a time. Told all
   * to come back at the reset, thousands of pages would each be taken again then, only to wait once more, and a
   * neighbour's pages would queue behind them every minute.
   */
  private readonly told = new LRUCache<string, { resetAt: number; count: number }>({ max: COUNTED_KEYS });

  constructor(
    private readonly keys: KeyCheck,
    private readonly keyLimits: KeyLimits,
  ) {}

  async admit(keyId: string, hop: CallOptions): Promise<Admission> {
    const key = await this.keys.checkId(keyId, hop);
    if (!key?.limits) return { revoked: true };
    // The slot first: a page that must wait for one has not spent a request of the minute.
    const release = await this.keyLimits.takeSlot(keyId, key.limits);
    // The slots are the key's too: none of its pages can run before one is released, so its line waits with this one
    // (taken page by page, a backlog's pages each came back every SLOT_WAIT_MS while its slots were busy, and a
    // neighbour's pages queued behind that churn in the embedded queue).
    if (!release) return { laterMs: SLOT_WAIT_MS * (0.5 + Math.random()), line: true };
    const request = await this.keyLimits.takeRequest(keyId, key.limits);
    if (request.allowed) return { release };
    release();
    const minutesAfter = Math.floor(this.countWaiting(keyId, request.resetMs) / key.limits.requestsPerMinute);
    // The minute is the key's: its other pages cannot run before it resets either.
    return { laterMs: request.resetMs + minutesAfter * MINUTE_MS + MINUTE_SPREAD_MS * Math.random(), line: true };
  }

  /** How many of the key's pages were told to wait for this reset of its minute before this one. */
  private countWaiting(keyId: string, resetMs: number): number {
    const resetAt = Date.now() + resetMs;
    const told = this.told.get(keyId);
    // One reset, however the milliseconds left were rounded when each page asked.
    if (told && Math.abs(told.resetAt - resetAt) < MINUTE_SPREAD_MS) return told.count++;
    this.told.set(keyId, { resetAt, count: 1 });
    return 0;
  }
}

import type { CallOptions } from "@winnow/platform";
import type { KeyCheck } from "../keys/key-check.js";
import type { KeyLimits } from "../keys/key-limits.js";

/** How long a page waits, on average, before asking again for a scrape slot its key has none of. */
const SLOT_WAIT_MS = 250;
/** Spreads the pages that wait for the same minute to reset, so that they do not all come back at once. */
const MINUTE_SPREAD_MS = 1_000;

/** Whether a page may run now: its slot's release, a wait, or its key revoked. */
export type Admission = { release: () => void } | { laterMs: number } | { revoked: true };

/**
 * Lets a batch page run under its job's key as that key is now: still valid
 * (a refresh or revocation stops its jobs), with its plan's current limits:
 * one of its scrape slots and one of its requests for the minute. A page
 * that cannot have them is told when to come back instead of waiting, so
 * that one throttled key does not hold the workers other keys' pages need.
 */
export class PageAdmission {
  constructor(
    private readonly keys: KeyCheck,
    private readonly keyLimits: KeyLimits,
  ) {}

  async admit(keyId: string, hop: CallOptions): Promise<Admission> {
    const key = await this.keys.checkId(keyId, hop);
    if (!key?.limits) return { revoked: true };
    // The slot first: a page that must wait for one has not spent a request of the minute.
    const release = await this.keyLimits.takeSlot(keyId, key.limits);
    if (!release) return { laterMs: SLOT_WAIT_MS * (0.5 + Math.random()) };
    const request = await this.keyLimits.takeRequest(keyId, key.limits);
    if (request.allowed) return { release };
    release();
    return { laterMs: request.resetMs + MINUTE_SPREAD_MS * Math.random() };
  }
}

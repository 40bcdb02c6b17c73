import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Page } from "playwright-core";
import { ACTIVITY_MARK, pageActivity } from "./in-page.js";

/** How often a busy page (not loaded, or a timer due soon) is asked again. */
const BUSY_POLL_MS = 50;

/** Counts a context's requests in flight, to wait until the network is quiet. */
export class InFlightRequests {
  #count = 0;
  #lastChange = performance.now();
  #waiters: (() => void)[] = [];

  started(): void {
    this.#count++;
    this.#lastChange = performance.now();
  }

  ended(): void {
    this.#count = Math.max(0, this.#count - 1);
    this.#lastChange = performance.now();
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once nothing has been in flight for quietMs, or after capMs regardless. */
  async quiet(quietMs: number, capMs: number): Promise<void> {
    const giveUp = performance.now() + capMs;
    for (;;) {
      const now = performance.now();
      if (now >= giveUp) return;
      const quietFor = now - this.#lastChange;
      if (this.#count === 0 && quietFor >= quietMs) return;
      const wait = this.#count === 0 ? quietMs - quietFor : giveUp - now;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(wait, giveUp - now));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/**
 * Resolves once the page has loaded and been quiet for quietMs (no request in flight, no node or text added or
 * removed, no timer due soon pending: see noteActivity), or after capMs regardless, so a page that animates or polls forever
 * is read as it is then. Rejects with Playwright's error when the page navigates or closes meanwhile.
 */
export async function pageQuiet(page: Page, inFlight: InFlightRequests, quietMs: number, capMs: number): Promise<void> {
  const giveUp = performance.now() + capMs;
  for (;;) {
    await inFlight.quiet(quietMs, giveUp - performance.now());
    const left = giveUp - performance.now();
    if (left <= 0) return;
    const activity = await page.evaluate(pageActivity, ACTIVITY_MARK);
    const wait = activity.busy ? BUSY_POLL_MS : quietMs - activity.quietForMs;
    if (wait <= 0) return;
    await sleep(Math.min(wait, left));
  }
}

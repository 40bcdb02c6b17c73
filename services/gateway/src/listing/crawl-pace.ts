/**
 * The pause between two pages a whole listing reads from one host: the operator's LISTING_CRAWL_DELAY_MS, or the
 * site's own robots.txt Crawl-delay when it asks for longer. Page starts on a host are spaced by it, whichever of the
 * listing's readers asks (its next pages, its records' own pages); a wait never goes past the request's deadline, which
 * then ends the listing as any deadline does.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { CallOptions } from "@winnow/platform";

export class CrawlPace {
  /** When the last page of each host started, in ms since the epoch. */
  private readonly lastStart = new Map<string, number>();
  /** Each host's waits, one after another: a gap is measured from when the page before really started. */
  private readonly turns = new Map<string, Promise<void>>();

  /**
   * delayMs: the operator's pause; siteDelayMs: the site's own (robots.txt Crawl-delay), undefined when it states none
   * or robots.txt is not honoured; hop: the request's deadline and abort signal.
   */
  constructor(
    private readonly delayMs: number,
    private readonly siteDelayMs: (url: string) => Promise<number | undefined>,
    private readonly hop: CallOptions,
  ) {}

  /** Counts a page of the URL's host started now (the first page, which nothing waited for). */
  started(url: string): void {
    this.lastStart.set(new URL(url).host, Date.now());
  }

  /** Waits until a page of the URL's host may start, and counts it started then. */
  async wait(url: string): Promise<void> {
    const delay = Math.max(this.delayMs, (await this.siteDelayMs(url)) ?? 0);
    const { host } = new URL(url);
    const turn = (this.turns.get(host) ?? Promise.resolve()).then(async () => {
      const now = Date.now();
      const last = this.lastStart.get(host);
      const until = last === undefined ? now : Math.min(last + delay, this.hop.deadline?.getTime() ?? Infinity);
      if (until > now) await sleep(until - now, undefined, { signal: this.hop.signal });
      this.lastStart.set(host, Date.now());
    });
    this.turns.set(
      host,
      turn.catch(() => undefined),
    );
    await turn;
  }
}

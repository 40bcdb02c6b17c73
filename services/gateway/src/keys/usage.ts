import type { AuthClient, Logger } from "@winnow/platform";
import type { KeyUsage, ScrapesByPath } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { RequestHandler } from "express";

/** One write to auth should not outlive a flush interval by much, nor hang a drain. */
const WRITE_TIMEOUT_MS = 5_000;

/**
 * Counts successful scrapes, their model tokens and what answered them (the
 * x-winnow-tokens-* and x-winnow-path headers the scrape handler sets) per key and UTC day in memory, and writes
 * them to auth in one call per interval and once more on shutdown. A failed
 * write keeps the counts for the next one, so an auth outage loses nothing; a
 * crash of the gateway loses at most the last interval's counts.
 */
export class UsageCounter {
  private pending = new Map<string, KeyUsage>();
  private writing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly auth: AuthClient,
    intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Counts each scrape answered with 200, once the answer has been sent. */
  middleware(): RequestHandler {
    return (_req, res, next) => {
      res.once("finish", () => {
        if (res.statusCode !== 200) return;
        this.countScrape(res.locals.keyId!, {
          path: String(res.getHeader("x-winnow-path") ?? ""),
          tokensIn: Number(res.getHeader("x-winnow-tokens-in") ?? 0),
          tokensOut: Number(res.getHeader("x-winnow-tokens-out") ?? 0),
        });
      });
      next();
    };
  }

  /** Counts one successful scrape for the key (a POST /scrape, or one page of a batch job), by what answered it. */
  countScrape(keyId: string, scrape: { path: string; tokensIn: number; tokensOut: number }): void {
    const byPath: ScrapesByPath = { cache: 0, template: 0, builtin: 0, model: 0 };
    if (Object.hasOwn(byPath, scrape.path)) byPath[scrape.path as keyof ScrapesByPath] = 1;
    const { tokensIn, tokensOut } = scrape;
    this.add({ keyId, day: new Date().toISOString().slice(0, 10), scrapes: 1, tokensIn, tokensOut, byPath });
  }

  /** Writes what has been counted; one write at a time (counts made meanwhile wait for the next). */
  flush(): Promise<void> {
    if (this.writing || this.pending.size === 0) return this.writing ?? Promise.resolve();
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.writing = this.auth
      .recordUsageBatch({ usage: batch }, { deadline: new Date(Date.now() + WRITE_TIMEOUT_MS) })
      .then(
        () => undefined,
        (error: unknown) => {
          for (const entry of batch) this.add(entry);
          this.logger.warn(
            { err: error, keys: batch.length },
            "could not record usage; the counts are kept for the next write",
          );
        },
      )
      .finally(() => (this.writing = undefined));
    return this.writing;
  }

  /** On shutdown, after the last scrape: writes everything (waiting for a write in progress first). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.writing;
    await this.flush();
    if (this.pending.size > 0) {
      this.logger.error(
        { usage: [...this.pending.values()] },
        "usage could not be recorded before shutdown; these counts are lost",
      );
    }
  }

  private add(usage: KeyUsage): void {
    const id = `${usage.keyId} ${usage.day}`;
    const counted = this.pending.get(id);
    if (!counted) this.pending.set(id, { ...usage, byPath: { ...usage.byPath! } });
    else {
      counted.scrapes += usage.scrapes;
      counted.tokensIn += usage.tokensIn;
      counted.tokensOut += usage.tokensOut;
      for (const name of Object.keys(counted.byPath!) as (keyof ScrapesByPath)[])
        counted.byPath![name] += usage.byPath![name];
    }
  }
}

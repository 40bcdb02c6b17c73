import { setTimeout as sleep } from "node:timers/promises";
import { type Logger, requestMetadata, WinnowError } from "@winnow/platform";
import { LRUCache } from "lru-cache";
import { problemDocument } from "../http/problem.js";
import type { KeyLimits } from "../keys/key-limits.js";
import type { UsageCounter } from "../keys/usage.js";
import { answerBody, engineName, renderPathName } from "../scrape/scrape.js";
import { type ScrapeDependencies, type ScrapeOutcome, scrapePage } from "../scrape/scrape-page.js";
import type { BatchJob, BatchStore, PageResult } from "./batch-store.js";
import type { Task } from "./task-queue.js";

/** A page of a job, as queued. */
export interface PageTask {
  jobId: string;
  index: number;
}

/** What a job tells its webhook: each finished page, and the job's end. */
export interface JobEvents {
  page(job: BatchJob, page: PageResult): Promise<void>;
  completed(job: BatchJob): Promise<void>;
}

/** How long a page waits before asking again for a scrape slot its key has none of. */
const SLOT_WAIT_MS = 250;

export interface PageRunnerOptions {
  store: BatchStore;
  /** What POST /scrape scrapes with: the backends and the scrape cache. */
  scrape: ScrapeDependencies;
  keyLimits: KeyLimits;
  usage: UsageCounter;
  events: JobEvents;
  /** Each page's deadline, as POST /scrape's. */
  requestTimeoutMs: number;
  logger: Logger;
}

/**
 * Runs one queued page: exactly a POST /scrape for the job's key (its
 * requests per minute and scrape slots taken first, waiting while it has
 * none), its outcome recorded once. A retryable failure is thrown for the
 * queue to try again later, until the last attempt, which records it.
 */
export class PageRunner {
  /**
   * Jobs as their pages need them: what a page reads of its job (request, plan, key, webhook) never changes, so
   * one read serves all its pages; whether the job still runs is asked per page (pageToRun).
   */
  private readonly jobs = new LRUCache<string, BatchJob>({ max: 1_000 });

  constructor(private readonly options: PageRunnerOptions) {}

  async run({ data, lastAttempt }: Task<PageTask>, signal: AbortSignal): Promise<void> {
    const { store, events } = this.options;
    let job = this.jobs.get(data.jobId);
    if (!job) {
      job = await store.job(data.jobId);
      if (job) this.jobs.set(job.id, job);
    }
    const url = job && (await store.pageToRun(data.jobId, data.index));
    if (!job || !url) return;
    const release = await this.takeLimits(job, signal);
    let outcome: { state: "done"; scraped: ScrapeOutcome } | { state: "failed"; problem: WinnowError };
    try {
      const deadline = new Date(Date.now() + this.options.requestTimeoutMs);
      // The page's log lines in every service carry the job and page as their request id.
      const metadata = requestMetadata({
        request_id: `${job.id}/${data.index}`,
        target_host: new URL(url).hostname,
        key_id: job.keyId,
      });
      const scraped = await scrapePage(
        this.options.scrape,
        { ...job.request, url },
        { accountId: job.accountId, hop: { deadline, signal, metadata } },
      );
      outcome = { state: "done", scraped };
    } catch (error) {
      // Shutting down: the page is tried again (here after a restart, or by another gateway).
      if (signal.aborted) throw error;
      const problem = asWinnowError(error, this.options.logger);
      if (problem.retryable && !lastAttempt) throw problem;
      outcome = { state: "failed", problem };
    } finally {
      release();
    }
    const result =
      outcome.state === "done"
        ? resultOf(outcome.scraped, job.request.evidence)
        : { problem: problemDocument(outcome.problem) };
    if (await store.finishPage(job.id, data.index, outcome.state, result)) {
      if (outcome.state === "done") {
        const { path, tokens } = outcome.scraped;
        this.options.usage.countScrape(job.keyId, { path, tokensIn: tokens.input, tokensOut: tokens.output });
      }
      await events.page(job, { index: data.index, url, status: outcome.state, ...result });
    }
    if (await store.completeIfFinished(job.id)) await events.completed(job);
  }

  /** Takes one of the key's requests for this minute and one of its scrape slots, waiting for each as long as it takes. */
  private async takeLimits(job: BatchJob, signal: AbortSignal): Promise<() => void> {
    const { keyLimits } = this.options;
    for (;;) {
      const state = await keyLimits.takeRequest(job.keyId, job.plan);
      if (state.allowed) break;
      await sleep(state.resetMs, undefined, { signal });
    }
    for (;;) {
      const release = await keyLimits.takeSlot(job.keyId, job.plan);
      if (release) return release;
      await sleep(SLOT_WAIT_MS * (0.5 + Math.random()), undefined, { signal });
    }
  }
}

/** A page's result as the job lists it: the data (with the evidence envelope when asked) and what answered it. */
function resultOf(scraped: ScrapeOutcome, evidence: boolean): PageResult {
  const body = JSON.parse(answerBody(scraped, evidence)) as Record<string, unknown>;
  return {
    ...(evidence ? body : { data: body }),
    engine: engineName(scraped.result.engine),
    render_path: renderPathName(scraped.page.path),
    path: scraped.path,
    tokens_in: scraped.tokens.input,
    tokens_out: scraped.tokens.output,
  };
}

function asWinnowError(error: unknown, logger: Logger): WinnowError {
  if (error instanceof WinnowError) {
    if (error.type === "internal") logger.error({ err: error.cause ?? error }, "batch page failed");
    return error;
  }
  logger.error({ err: error }, "batch page failed unexpectedly");
  return new WinnowError("internal", "unexpected error", { cause: error });
}

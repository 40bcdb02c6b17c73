import { type Logger, meter, parseSchema, requestMetadata, WinnowError } from "@winnow/platform";
import { LRUCache } from "lru-cache";
import { problemDocument } from "../http/problem.js";
import type { UsageCounter } from "../keys/usage.js";
import { listFields } from "../listing/list-fields.js";
import { type PagesRead, readByModel } from "../listing/pages-read.js";
import { type ListingProgress, type ListingSettings, readListing } from "../listing/read-listing.js";
import { statusEnvelope } from "../scrape/field-status.js";
import { answerBody, engineName, renderPathName } from "../scrape/scrape.js";
import { type ScrapeContext, type ScrapeDependencies, type ScrapeOutcome, scrapePage } from "../scrape/scrape-page.js";
import type { ScrapeRequest } from "../scrape/scrape-request.js";
import type { BatchJob, BatchStore, PageResult } from "./batch-store.js";
import type { PageAdmission } from "./page-admission.js";
import type { Task, TaskOutcome } from "./task-queue.js";

/** How busy this worker is: pages admitted and being read now (what a scale-down must wait for). */
const pagesRunning = meter.createUpDownCounter("winnow.jobs.pages.running", {
  description: "Batch pages this jobs worker is reading now (admitted by their key's limits)",
});

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

export interface PageRunnerOptions {
  store: BatchStore;
  /** What POST /scrape scrapes with: the backends and the scrape cache. */
  scrape: ScrapeDependencies;
  admission: PageAdmission;
  usage: UsageCounter;
  events: JobEvents;
  /** Each page's deadline, as POST /scrape's. */
  requestTimeoutMs: number;
  /** How a URL asking for a whole listing reads it, as POST /scrape does. */
  listing: ListingSettings;
  logger: Logger;
}

/** A page's scrape, and what it read: a whole listing (options.pages, options.details) reads several. */
type Scraped = ScrapeOutcome & { pages: PagesRead };
type Outcome = { state: "done"; scraped: Scraped } | { state: "failed"; problem: WinnowError };

/**
 * Runs one queued page: exactly a POST /scrape for the job's key (a whole
 * listing when the job asks for one: its pages, its records' pages), once the
 * key lets it (PageAdmission; until then it goes back to the queue), its
 * outcome recorded once. A retryable failure is thrown for the queue to try
 * again later, until the last attempt, which records it; a page the queue
 * gives up without an outcome is recorded as abandoned.
 */
export class PageRunner {
  /**
   * Jobs as their pages need them: what a page reads of its job (request, key, webhook) never changes, so one
   * read serves all its pages; whether the job still runs is asked per page (pageToRun).
   */
  private readonly jobs = new LRUCache<string, BatchJob>({ max: 1_000 });

  constructor(private readonly options: PageRunnerOptions) {}

  async run({ data, lastAttempt }: Task<PageTask>, signal: AbortSignal): Promise<TaskOutcome> {
    const job = await this.job(data.jobId);
    const url = job && (await this.options.store.pageToRun(data.jobId, data.index));
    if (!job || !url) return undefined;
    const deadline = new Date(Date.now() + this.options.requestTimeoutMs);
    // The page's log lines in every service carry the job and page as their request id.
    const metadata = requestMetadata({
      request_id: `${job.id}/${data.index}`,
      target_host: new URL(url).hostname,
      key_id: job.keyId,
    });
    const hop = { deadline, signal, metadata };
    let outcome: Outcome;
    let release: (() => void) | undefined;
    try {
      const admission = await this.options.admission.admit(job.keyId, hop);
      if ("laterMs" in admission) return admission;
      if ("revoked" in admission) {
        // Each page records only itself: a page of the job already running when the key changed still ends as it runs.
        await this.finish(job, data.index, url, { state: "failed", problem: revokedKeyProblem() });
        return undefined;
      }
      pagesRunning.add(1);
      release = () => {
        pagesRunning.add(-1);
        admission.release();
      };
      outcome = {
        state: "done",
        scraped: await this.scrape({ ...job.request, url }, { accountId: job.accountId, hop }, (read) =>
          // Progress is a courtesy: a write that fails loses nothing the page's result will not state.
          this.options.store.reading(job.id, data.index, read).catch((error: unknown) => {
            this.options.logger.warn(
              { err: error, jobId: job.id, index: data.index },
              "could not record a listing's progress",
            );
          }),
        ),
      };
    } catch (error) {
      // Shutting down: the page is tried again (here after a restart, or by another jobs worker).
      if (signal.aborted) throw error;
      const problem = asWinnowError(error, this.options.logger);
      if (problem.retryable && !lastAttempt) throw problem;
      outcome = { state: "failed", problem };
    } finally {
      release?.();
    }
    await this.finish(job, data.index, url, outcome);
    return undefined;
  }

  /** A page the queue gave up (every attempt cut short): recorded as abandoned, unless it has an outcome already. */
  async giveUp(data: PageTask): Promise<void> {
    const job = await this.job(data.jobId);
    const url = job && (await this.options.store.pageToRun(data.jobId, data.index));
    if (!job || !url) return;
    this.options.logger.warn({ jobId: job.id, index: data.index }, "batch page given up: every attempt was cut short");
    const problem = new WinnowError(
      "page-abandoned",
      "Every attempt at this page was cut short (jobs workers shut down or lost while it ran); submit it again.",
    );
    await this.finish(job, data.index, url, { state: "failed", problem });
  }

  private async scrape(request: ScrapeRequest, context: ScrapeContext, progress: ListingProgress): Promise<Scraped> {
    const { listing } = request;
    if (listing.pages > 1 || listing.details) {
      return readListing(this.options.scrape, request, context, this.options.listing, progress);
    }
    const scraped = await scrapePage(this.options.scrape, request, context);
    return { ...scraped, pages: { listing: 1, details: 0, failed: 0, model: readByModel(scraped.result) } };
  }

  private async job(id: string): Promise<BatchJob | undefined> {
    let job = this.jobs.get(id);
    if (!job) {
      job = await this.options.store.job(id);
      if (job) this.jobs.set(job.id, job);
    }
    return job;
  }

  private async finish(job: BatchJob, index: number, url: string, outcome: Outcome): Promise<void> {
    const { store, events } = this.options;
    const result =
      outcome.state === "done" ? resultOf(outcome.scraped, job.request) : { problem: problemDocument(outcome.problem) };
    if (await store.finishPage(job.id, index, outcome.state, result)) {
      if (outcome.state === "done") {
        const { path, tokens } = outcome.scraped;
        this.options.usage.countScrape(job.keyId, { path, tokensIn: tokens.input, tokensOut: tokens.output });
      }
      await events.page(job, { index, url, status: outcome.state, ...result });
    }
    if (await store.completeIfFinished(job.id)) await events.completed(job);
  }
}

/** A job runs under the key that submitted it only: once that key is revoked, none of its pages left runs. */
function revokedKeyProblem(): WinnowError {
  return new WinnowError(
    "key-revoked",
    "The API key that submitted this job was refreshed or revoked before this page ran; submit the pages left again with the new key.",
  );
}

/**
 * A page's result as the job lists it: the data, each field's status and the warnings (a batch result has no headers
 * to carry them), the evidence envelope when asked, and what answered it and read: the pages (as Winnow-Pages
 * counts them) and, with lists of records in the schema, the records found. The field statuses are `field_status`
 * here: a result's own `status` is the page's state.
 */
function resultOf(scraped: Scraped, request: Omit<ScrapeRequest, "url">): PageResult {
  const { evidence } = request;
  const answer = JSON.parse(answerBody(scraped, request)) as Record<string, unknown>;
  const fields = statusEnvelope(scraped.result.fieldStatus, scraped.result.warnings);
  const data = (evidence ? answer.data : answer) as Record<string, unknown> | null;
  const lists = listFields(parseSchema(JSON.parse(request.schemaJson)));
  return {
    ...(evidence ? { ...answer, status: undefined } : { data: answer }),
    pages: scraped.pages,
    ...(lists.length > 0 && {
      records: lists.reduce(
        (sum, list) => sum + (Array.isArray(data?.[list.name]) ? (data[list.name] as []).length : 0),
        0,
      ),
    }),
    field_status: fields.status,
    warnings: fields.warnings,
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

import { connectionOf } from "./connection.js";
import { errorFromProblem, type Problem } from "./errors.js";
import { refuseUnknownKeys } from "./known-keys.js";
import type { AnySchema } from "./schema.js";

export interface WinnowBatchOptions {
  /** Defaults to the WINNOW_API_KEY environment variable. */
  apiKey?: string;
  /** Defaults to WINNOW_BASE_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  fetch?: typeof fetch;
}

export interface BatchScrapeRequest {
  urls: string[];
  schema: AnySchema;
  taskDescription?: string;
  /** As POST /scrape's options, in the API's spelling (`render`, `timeout_ms`, `wait_for`, `evidence`). */
  options?: Record<string, unknown>;
  /** Where to POST the job's signed events (`page`, `completed`). */
  webhook?: { url: string; events?: ("page" | "completed")[] };
}

export interface BatchJob {
  id: string;
  status: "running" | "completed" | "cancelled";
  total: number;
  counts: { queued: number; done: number; failed: number; cancelled: number };
  /** What the done pages have read so far: pages (a whole listing's count all theirs) and records in lists. */
  progress: { pages_read: number; records: number };
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
}

/** One URL of a job: `data` when done, `problem` when failed. */
export interface BatchResult<T = Record<string, unknown>> {
  index: number;
  url: string;
  status: "queued" | "done" | "failed" | "cancelled";
  data?: T;
  /** A done page's field statuses by JSON pointer ("found", "absent", ...: STATUS_MEANINGS). */
  field_status?: Record<string, string>;
  warnings?: { code: string; message: string; path?: string }[];
  /** With `options.evidence`: where each value was read, by JSON pointer. */
  evidence?: Record<string, unknown>;
  problem?: Problem;
  engine?: string;
  render_path?: string;
  tokens_in?: number;
  tokens_out?: number;
  /** A done page's pages read, as `Winnow-Pages` counts them (a whole listing with `options.pages` / `details`). */
  pages?: { listing: number; details: number; failed: number };
  /** With lists of records in the schema: the records in this page's answer. */
  records?: number;
}

export interface WaitOptions {
  /** Called with the job after every poll. */
  onProgress?: (job: BatchJob) => void;
  /** Between polls; 1000 ms by default. */
  intervalMs?: number;
  signal?: AbortSignal;
}

/**
 * Batch jobs: many URLs, one schema, scraped by Winnow's queue within the
 * key's plan. `batchScrape` submits, waits (with progress) and answers every
 * result; `submit`, `wait`, `results` and `cancel` do the steps one by one.
 */
export class WinnowBatch {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;

  constructor(options: WinnowBatchOptions = {}) {
    const { apiKey, baseUrl } = connectionOf(options, "WinnowBatch");
    this.#apiKey = apiKey;
    this.baseUrl = baseUrl;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Submits the job, waits for it to end and answers every result, in the order of `urls`. */
  async batchScrape(request: BatchScrapeRequest, wait: WaitOptions = {}): Promise<BatchResult[]> {
    const job = await this.submit(request);
    await this.wait(job.id, wait);
    const results: BatchResult[] = [];
    for await (const result of this.results(job.id)) results.push(result);
    return results;
  }

  async submit(request: BatchScrapeRequest): Promise<BatchJob> {
    refuseUnknownKeys(request, ["urls", "schema", "taskDescription", "options", "webhook"], "submit");
    const body: Record<string, unknown> = { urls: request.urls, schema: request.schema };
    if (request.taskDescription !== undefined) body.task_description = request.taskDescription;
    if (request.options) body.options = request.options;
    if (request.webhook) body.webhook = request.webhook;
    return (await this.#call("POST", "/batch/scrape", body)) as BatchJob;
  }

  async status(id: string): Promise<BatchJob> {
    return (await this.#call("GET", `/batch/scrape/${encodeURIComponent(id)}?limit=1`)) as BatchJob;
  }

  /** Polls until the job is no longer running; answers it as it ended. */
  async wait(id: string, { onProgress, intervalMs = 1_000, signal }: WaitOptions = {}): Promise<BatchJob> {
    for (;;) {
      const job = await this.status(id);
      onProgress?.(job);
      if (job.status !== "running") return job;
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  /** Every result of the job, a page of `pageSize` at a time. */
  async *results(id: string, pageSize = 500): AsyncGenerator<BatchResult> {
    for (let cursor: string | null = "0"; cursor !== null; ) {
      const page = await this.page(id, cursor, pageSize);
      yield* page.results;
      cursor = page.next_cursor;
    }
  }

  /** The job and `limit` of its results from `cursor` ("0": the first), with the cursor of the next page (or null). */
  async page(
    id: string,
    cursor: string,
    limit: number,
  ): Promise<{ job: BatchJob; results: BatchResult[]; next_cursor: string | null }> {
    const query = new URLSearchParams({ cursor, limit: String(limit) });
    const { results, next_cursor, ...job } = (await this.#call(
      "GET",
      `/batch/scrape/${encodeURIComponent(id)}?${query}`,
    )) as BatchJob & { results: BatchResult[]; next_cursor: string | null };
    return { job, results, next_cursor };
  }

  async cancel(id: string): Promise<BatchJob> {
    return (await this.#call("DELETE", `/batch/scrape/${encodeURIComponent(id)}`)) as BatchJob;
  }

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await this.#fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": this.#apiKey },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.ok) return JSON.parse(text);
    let problem: Problem;
    try {
      problem = JSON.parse(text) as Problem;
    } catch {
      problem = {
        type: `http-${response.status}`,
        title: `HTTP ${response.status}`,
        status: response.status,
        detail: text.slice(0, 500),
      };
    }
    const retryAfter = Number(response.headers.get("retry-after")) || undefined;
    throw errorFromProblem(problem, response.status, response.headers.get("x-request-id") ?? undefined, retryAfter);
  }
}

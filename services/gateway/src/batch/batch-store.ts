import { randomUUID } from "node:crypto";
import { WinnowError } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import type { ScrapeRequest } from "../scrape/scrape-request.js";
import type { WebhookEvent } from "./batch-request.js";

export type JobState = "running" | "completed" | "cancelled";
type PageState = "queued" | "done" | "failed" | "cancelled";

/** What a page of a job answered, as GET /batch/scrape/{id} lists it (with its url and status). */
export type PageResult = Record<string, unknown>;

export interface BatchJob {
  id: string;
  accountId: string;
  keyId: string;
  request: Omit<ScrapeRequest, "url">;
  webhook: { url: string; events: WebhookEvent[] } | null;
  total: number;
  state: JobState;
  createdAt: Date;
  finishedAt: Date | null;
  expiresAt: Date | null;
}

/** One of a new job's URLs; with the problem document of why it was refused, it is failed from the start. */
interface NewItem {
  url: string;
  problem?: Record<string, unknown>;
}

/** What a job's finished pages have read so far: pages (listing and records' pages) and records. */
export interface JobProgress {
  pages_read: number;
  records: number;
}

/** A job's state, counts and progress, as every batch answer and the `completed` event state them. */
export interface JobDescription {
  id: string;
  status: JobState;
  total: number;
  counts: PageCounts;
  progress: JobProgress;
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
}

export interface NewJob {
  accountId: string;
  keyId: string;
  request: Omit<ScrapeRequest, "url">;
  webhook: { url: string; events: WebhookEvent[] } | undefined;
  items: NewItem[];
}

export interface PageRow {
  index: number;
  url: string;
  state: PageState;
  result: PageResult | null;
}

export type PageCounts = Record<PageState, number>;

interface JobRow {
  id: string;
  account_id: string;
  key_id: string;
  request: Omit<ScrapeRequest, "url" | "fieldRules"> & Partial<Pick<ScrapeRequest, "fieldRules">>;
  webhook: { url: string; events: WebhookEvent[] } | null;
  total: number;
  state: JobState;
  created_at: Date;
  finished_at: Date | null;
  expires_at: Date | null;
}

/**
 * Batch jobs and their pages' results in the gateway database. Each page is
 * finished once: a page already done (a retry after a restart, a second
 * worker) is never written again, which is what keeps results from repeating.
 */
export class BatchStore {
  constructor(
    private readonly db: SqlDatabase,
    /** How long a finished job's results are kept. */
    private readonly resultTtlMs: number,
  ) {}

  /**
   * Records a job and its pages (refused URLs as failed pages); answers the
   * id and the indexes to queue. Refuses a key that already has `maxLive` running jobs.
   */
  async create(job: NewJob, maxLive: number): Promise<{ id: string; queued: number[] }> {
    const id = randomUUID();
    const failedResult = (item: NewItem) => (item.problem ? JSON.stringify({ problem: item.problem }) : null);
    await this.db.transaction(async (tx) => {
      // One submission per key at a time, so two racing submissions cannot both pass the count.
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('batch:' || $1::text))", [job.keyId]);
      const [live] = await tx.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM batch_jobs WHERE key_id = $1 AND state = 'running'",
        [job.keyId],
      );
      if (live!.count >= maxLive) {
        throw new WinnowError(
          "rate-limited",
          `This key already has ${live!.count} batch jobs running, the most allowed (BATCH_MAX_LIVE_JOBS); wait for one to finish or cancel one.`,
          { retryAfterMs: 10_000 },
        );
      }
      const allFailed = job.items.every((item) => item.problem);
      await tx.query(
        `INSERT INTO batch_jobs (id, account_id, key_id, request, webhook, total, state, finished_at, expires_at)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9)`,
        [
          id,
          job.accountId,
          job.keyId,
          JSON.stringify(job.request),
          job.webhook ? JSON.stringify(job.webhook) : null,
          job.items.length,
          allFailed ? "completed" : "running",
          allFailed ? new Date() : null,
          allFailed ? new Date(Date.now() + this.resultTtlMs) : null,
        ],
      );
      await tx.query(
        `INSERT INTO batch_pages (job_id, index, url, state, result, finished_at)
         SELECT $1, item.index, item.url, item.state, item.result::jsonb,
                CASE WHEN item.state = 'queued' THEN NULL ELSE now() END
         FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS item (index, url, state, result)`,
        [
          id,
          job.items.map((_, index) => index),
          job.items.map((item) => item.url),
          job.items.map((item) => (item.problem ? "failed" : "queued")),
          job.items.map(failedResult),
        ],
      );
    });
    const queued = job.items.flatMap((item, index) => (item.problem ? [] : [index]));
    return { id, queued };
  }

  /** The job, if it exists and belongs to the account (another account's job is as good as absent). */
  async job(id: string, accountId?: string): Promise<BatchJob | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.db.query<JobRow>("SELECT * FROM batch_jobs WHERE id = $1", [id]);
    if (!row || (accountId !== undefined && row.account_id !== accountId)) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      keyId: row.key_id,
      // A job queued before field rules existed has none (its schema had no enum, const or format to keep).
      request: { ...row.request, fieldRules: row.request.fieldRules ?? {} },
      webhook: row.webhook,
      total: row.total,
      state: row.state,
      createdAt: new Date(row.created_at),
      finishedAt: row.finished_at && new Date(row.finished_at),
      expiresAt: row.expires_at && new Date(row.expires_at),
    };
  }

  /** The job's state, counts and progress, as every batch answer and the `completed` event state them. */
  async describe(job: BatchJob): Promise<JobDescription> {
    return {
      id: job.id,
      status: job.state,
      total: job.total,
      counts: await this.counts(job.id),
      progress: await this.progress(job.id),
      created_at: job.createdAt.toISOString(),
      finished_at: job.finishedAt?.toISOString() ?? null,
      expires_at: job.expiresAt?.toISOString() ?? null,
    };
  }

  private async counts(id: string): Promise<PageCounts> {
    const rows = await this.db.query<{ state: PageState; count: number }>(
      "SELECT state, count(*)::int AS count FROM batch_pages WHERE job_id = $1 GROUP BY state",
      [id],
    );
    const counts: PageCounts = { queued: 0, done: 0, failed: 0, cancelled: 0 };
    for (const row of rows) counts[row.state] = row.count;
    return counts;
  }

  /**
   * What the job has read: its done pages' results' `pages` and `records` (page-runner.ts's resultOf), and what its
   * pages still being read (whole listings) have read so far.
   */
  async progress(id: string): Promise<JobProgress> {
    const [row] = await this.db.query<JobProgress>(
      `SELECT coalesce(sum(CASE WHEN state = 'done'
                THEN coalesce((result->'pages'->>'listing')::int, 1) + coalesce((result->'pages'->>'details')::int, 0)
                ELSE (reading->>'pages_read')::int END), 0)::int AS pages_read,
              coalesce(sum(CASE WHEN state = 'done' THEN coalesce((result->>'records')::int, 0)
                ELSE (reading->>'records')::int END), 0)::int AS records
       FROM batch_pages WHERE job_id = $1 AND (state = 'done' OR (state = 'queued' AND reading IS NOT NULL))`,
      [id],
    );
    return row!;
  }

  /** What a page still being read (a whole listing) has read so far; nothing once it is finished. */
  async reading(id: string, index: number, progress: JobProgress): Promise<void> {
    await this.db.query(
      "UPDATE batch_pages SET reading = $3::jsonb WHERE job_id = $1 AND index = $2 AND state = 'queued'",
      [id, index, JSON.stringify(progress)],
    );
  }

  /** Up to `limit` pages from index `from` on, in order. */
  pages(id: string, from: number, limit: number): Promise<PageRow[]> {
    return this.db.query<PageRow>(
      "SELECT index, url, state, result FROM batch_pages WHERE job_id = $1 AND index >= $2 ORDER BY index LIMIT $3",
      [id, from, limit],
    );
  }

  /** The page's URL when it still has to run (its job running, itself not finished); else undefined. */
  async pageToRun(id: string, index: number): Promise<string | undefined> {
    const [row] = await this.db.query<{ url: string }>(
      `SELECT p.url FROM batch_pages p JOIN batch_jobs j ON j.id = p.job_id
       WHERE p.job_id = $1 AND p.index = $2 AND p.state = 'queued' AND j.state = 'running'`,
      [id, index],
    );
    return row?.url;
  }

  /** Records a page's outcome once; false when it was already finished (or cancelled). */
  async finishPage(id: string, index: number, state: "done" | "failed", result: PageResult): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE batch_pages SET state = $3, result = $4::jsonb, reading = NULL, finished_at = now()
       WHERE job_id = $1 AND index = $2 AND state = 'queued' RETURNING index`,
      [id, index, state, JSON.stringify(result)],
    );
    return rows.length > 0;
  }

  /** Marks the job completed once no page is left queued; true only for the call that did. */
  async completeIfFinished(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE batch_jobs SET state = 'completed', finished_at = now(), expires_at = now() + $2 * interval '1 millisecond'
       WHERE id = $1 AND state = 'running'
         AND NOT EXISTS (SELECT 1 FROM batch_pages WHERE job_id = $1 AND state = 'queued')
       RETURNING id`,
      [id, this.resultTtlMs],
    );
    return rows.length > 0;
  }

  /** Cancels a running job of the account: its queued pages will not run. False when it was not running. */
  async cancel(id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(
        `UPDATE batch_jobs SET state = 'cancelled', finished_at = now(), expires_at = now() + $2 * interval '1 millisecond'
         WHERE id = $1 AND state = 'running' RETURNING id`,
        [id, this.resultTtlMs],
      );
      if (rows.length === 0) return false;
      await tx.query("UPDATE batch_pages SET state = 'cancelled' WHERE job_id = $1 AND state = 'queued'", [id]);
      return true;
    });
  }

  /** Deletes the jobs (and results) kept past their time; answers how many. */
  async deleteExpired(): Promise<number> {
    const rows = await this.db.query("DELETE FROM batch_jobs WHERE expires_at < now() RETURNING id");
    return rows.length;
  }
}

function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}

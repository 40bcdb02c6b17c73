import { WinnowError } from "@winnow/platform";
import { type RequestHandler, type Response, Router } from "express";
import { jsonBody } from "../http/json-body.js";
import { parseBatchRequest } from "./batch-request.js";
import type { BatchJob, BatchStore } from "./batch-store.js";
import type { JobEvents, PageTask } from "./page-runner.js";
import type { TaskQueue } from "./task-queue.js";

/** Results per page of GET /batch/scrape/{id} when `limit` is not given, and the most it may ask. */
const RESULTS_PER_PAGE = { default: 100, max: 1000 };

export interface BatchRoutesOptions {
  store: BatchStore;
  pages: TaskQueue<PageTask>;
  events: JobEvents;
  /** Checks a webhook address before the job is accepted (the egress guard); throws a WinnowError when refused. */
  checkWebhook(url: URL): Promise<void>;
  maxUrls: number;
  maxLiveJobs: number;
  maxBodyBytes: number;
  /** The key check and the per-key request count, as POST /scrape has them. */
  apiKey: RequestHandler;
  countRequest: RequestHandler;
}

/** POST /batch/scrape, GET and DELETE /batch/scrape/{id}; a job is visible only to its account's keys. */
export function batchRouter(options: BatchRoutesOptions): Router {
  const { store, apiKey } = options;
  const router = Router();

  router.post("/", apiKey, options.countRequest, ...jsonBody(options.maxBodyBytes), async (req, res) => {
    const request = parseBatchRequest(req.body, options.maxUrls);
    if (request.webhook) await options.checkWebhook(request.webhook.url);
    const { accountId, keyId } = res.locals;
    const { id, queued } = await store.create(
      {
        accountId: accountId!,
        keyId: keyId!,
        request: request.page,
        webhook: request.webhook && { url: request.webhook.url.href, events: request.webhook.events },
        items: request.items,
      },
      options.maxLiveJobs,
    );
    // Accounts take turns at the workers: another account's pages wait for about one page per account waiting.
    await options.pages.add(
      queued.map((index) => ({ jobId: id, index })),
      accountId,
    );
    const job = (await store.job(id))!;
    // Every URL refused up front: the job is over already.
    if (job.state === "completed") await options.events.completed(job);
    res.setHeader("Location", statusPath(id));
    res.status(202).json({ ...(await store.describe(job)), status_url: statusPath(id) });
  });

  router.get("/:id", apiKey, async (req, res) => {
    const job = await ownJob(store, String(req.params.id), res);
    const cursor = whole(req.query.cursor, "cursor", 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const limit = whole(req.query.limit, "limit", 1, RESULTS_PER_PAGE.max) ?? RESULTS_PER_PAGE.default;
    const rows = await store.pages(job.id, cursor, limit + 1);
    const results = rows.slice(0, limit).map((row) => ({
      index: row.index,
      url: row.url,
      status: row.state,
      ...row.result,
    }));
    const next = rows.length > limit ? String(rows[limit]!.index) : null;
    res.json({ ...(await store.describe(job)), results, next_cursor: next });
  });

  router.delete("/:id", apiKey, async (req, res) => {
    const job = await ownJob(store, String(req.params.id), res);
    await store.cancel(job.id);
    res.json(await store.describe((await store.job(job.id))!));
  });

  router.all("/", methodNotAllowed("POST"));
  router.all("/:id", methodNotAllowed("GET, DELETE"));
  return router;
}

function statusPath(id: string): string {
  return `/batch/scrape/${id}`;
}

async function ownJob(store: BatchStore, id: string, res: Response): Promise<BatchJob> {
  const job = await store.job(id, res.locals.accountId);
  if (!job) throw new WinnowError("not-found", `No batch job ${id} for this account (it may have expired).`);
  return job;
}

function whole(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value : "";
  const number = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(number >= min && number <= max)) {
    throw new WinnowError("invalid-request", `${name} must be a whole number from ${min} to ${max}`, {
      violations: [{ path: `?${name}`, description: `must be a whole number from ${min} to ${max}` }],
    });
  }
  return number;
}

function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
    res.setHeader("Allow", allow);
    throw new WinnowError("method-not-allowed", `${req.method} is not allowed on ${req.originalUrl}; use ${allow}.`);
  };
}

import { type JobsClient, WinnowError } from "@winnow/platform";
import { type RequestHandler, Router } from "express";
import { jsonBody } from "../http/json-body.js";
import { problemDocument } from "../http/problem.js";
import { hop } from "../http/request-context.js";
import { fromJobStatus } from "../jobs/job-status.js";
import type { ListingLimits } from "../scrape/scrape-request.js";
import { parseBatchRequest } from "./batch-request.js";

/** Results per page of GET /batch/scrape/{id} when `limit` is not given, and the most it may ask. */
const RESULTS_PER_PAGE = { default: 100, max: 1000 };

export interface BatchRoutesOptions {
  /** The jobs worker, which records the jobs and runs their pages and webhooks. */
  jobs: JobsClient;
  maxUrls: number;
  /** What a URL of a job may ask of a whole listing (options.pages), as POST /scrape. */
  listing: ListingLimits;
  maxBodyBytes: number;
  /** The key check and the per-key request count, as POST /scrape has them. */
  apiKey: RequestHandler;
  countRequest: RequestHandler;
}

/**
 * POST /batch/scrape, GET and DELETE /batch/scrape/{id}: the key checked and the request validated here, the job
 * itself the jobs worker's (one call each). A job is visible only to its account's keys.
 */
export function batchRouter(options: BatchRoutesOptions): Router {
  const { jobs, apiKey } = options;
  const router = Router();

  router.post("/", apiKey, options.countRequest, ...jsonBody(options.maxBodyBytes), async (req, res) => {
    const request = parseBatchRequest(req.body, options.maxUrls, options.listing);
    const { accountId, keyId } = res.locals;
    const { job: submitted } = await jobs.submitBatch(
      {
        accountId: accountId!,
        keyId: keyId!,
        pageRequestJson: JSON.stringify(request.page),
        items: request.items.map((item) => ({
          url: item.url,
          problemJson: item.problem ? JSON.stringify(problemDocument(item.problem)) : "",
        })),
        webhook: request.webhook && { url: request.webhook.url.href, events: request.webhook.events },
      },
      hop(res),
    );
    const job = fromJobStatus(submitted);
    res.setHeader("Location", statusPath(job.id));
    res.status(202).json({ ...job, status_url: statusPath(job.id) });
  });

  router.get("/:id", apiKey, async (req, res) => {
    const cursor = whole(req.query.cursor, "cursor", 0, 2 ** 32 - 1) ?? 0;
    const limit = whole(req.query.limit, "limit", 1, RESULTS_PER_PAGE.max) ?? RESULTS_PER_PAGE.default;
    const answer = await jobs.getJob(
      { accountId: res.locals.accountId!, jobId: String(req.params.id), cursor, limit },
      hop(res),
    );
    const results = answer.results.map((row) => ({
      index: row.index,
      url: row.url,
      status: row.status,
      ...(row.resultJson && (JSON.parse(row.resultJson) as Record<string, unknown>)),
    }));
    const next = answer.nextCursor === undefined ? null : String(answer.nextCursor);
    res.json({ ...fromJobStatus(answer.job), results, next_cursor: next });
  });

  router.delete("/:id", apiKey, async (req, res) => {
    const { job } = await jobs.cancelJob({ accountId: res.locals.accountId!, jobId: String(req.params.id) }, hop(res));
    res.json(fromJobStatus(job));
  });

  router.all("/", methodNotAllowed("POST"));
  router.all("/:id", methodNotAllowed("GET, DELETE"));
  return router;
}

function statusPath(id: string): string {
  return `/batch/scrape/${id}`;
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

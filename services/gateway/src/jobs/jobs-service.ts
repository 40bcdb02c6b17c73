import { type Logger, type ServiceBinding, unary, WinnowError } from "@winnow/platform";
import {
  type JobsServiceServer,
  JobsServiceService,
  type SubmitBatchRequest,
} from "@winnow/platform/gen/winnow/jobs/v1/jobs.js";
import type { RunningBatch } from "../batch/batch.js";
import type { WebhookEvent } from "../batch/batch-request.js";
import type { BatchJob, NewJob } from "../batch/batch-store.js";
import { toJobStatus } from "./job-status.js";

export interface JobsServiceDependencies {
  batch: RunningBatch;
  /** Batch jobs running at once per API key. */
  maxLiveJobs: number;
  logger: Logger;
}

/** The service as the jobs worker's gRPC server registers it: the gateway's calls alone (its batch routes). */
export function jobsServiceBinding(dependencies: JobsServiceDependencies): ServiceBinding {
  return {
    name: "winnow.jobs.v1.JobsService",
    definition: JobsServiceService,
    implementation: createJobsService(dependencies),
    protoFile: "winnow/jobs/v1/jobs.proto",
    callers: { submitBatch: ["gateway"], getJob: ["gateway"], cancelJob: ["gateway"] },
  };
}

function createJobsService({ batch, maxLiveJobs, logger }: JobsServiceDependencies): JobsServiceServer {
  const { store, pages, webhooks } = batch;

  /** The account's job, or "not-found" (another account's job is as good as absent). */
  const ownJob = async (accountId: string, id: string): Promise<BatchJob> => {
    const job = await store.job(id, required("account_id", accountId));
    if (!job) throw new WinnowError("not-found", `No batch job ${id} for this account (it may have expired).`);
    return job;
  };

  return {
    submitBatch: unary(logger, async (request) => {
      const job = newJob(request);
      if (job.webhook) await webhooks.check(new URL(job.webhook.url));
      const { id, queued } = await store.create(job, maxLiveJobs);
      // Accounts take turns at the workers: another account's pages wait for about one page per account waiting.
      await pages.add(
        queued.map((index) => ({ jobId: id, index })),
        job.accountId,
      );
      const created = (await store.job(id))!;
      // Every URL refused up front: the job is over already.
      if (created.state === "completed") await webhooks.completed(created);
      return { job: toJobStatus(await store.describe(created)) };
    }),

    getJob: unary(logger, async (request) => {
      if (request.limit < 1) throw new WinnowError("invalid-request", "limit must be at least 1");
      const job = await ownJob(request.accountId, request.jobId);
      const rows = await store.pages(job.id, request.cursor, request.limit + 1);
      return {
        job: toJobStatus(await store.describe(job)),
        results: rows.slice(0, request.limit).map((row) => ({
          index: row.index,
          url: row.url,
          status: row.state,
          resultJson: row.result ? JSON.stringify(row.result) : "",
        })),
        nextCursor: rows.length > request.limit ? rows[request.limit]!.index : undefined,
      };
    }),

    cancelJob: unary(logger, async (request) => {
      const job = await ownJob(request.accountId, request.jobId);
      await store.cancel(job.id);
      return { job: toJobStatus(await store.describe((await store.job(job.id))!)) };
    }),
  };
}

/** The job a submission records; the gateway has validated the request, so what is malformed here is its bug. */
function newJob(request: SubmitBatchRequest): NewJob {
  let page: NewJob["request"];
  try {
    page = JSON.parse(request.pageRequestJson) as NewJob["request"];
  } catch {
    throw new WinnowError("invalid-request", "page_request_json is not JSON");
  }
  if (request.items.length === 0) throw new WinnowError("invalid-request", "items: at least one is required");
  return {
    accountId: required("account_id", request.accountId),
    keyId: required("key_id", request.keyId),
    request: page,
    webhook: request.webhook && { url: request.webhook.url, events: request.webhook.events as WebhookEvent[] },
    items: request.items.map((item) => ({
      url: item.url,
      ...(item.problemJson && { problem: JSON.parse(item.problemJson) as Record<string, unknown> }),
    })),
  };
}

function required(name: string, value: string): string {
  if (!value) throw new WinnowError("invalid-request", `${name} is required`);
  return value;
}

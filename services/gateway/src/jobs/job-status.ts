import type { JobStatus } from "@winnow/platform/gen/winnow/jobs/v1/jobs.js";
import type { JobDescription, JobState } from "../batch/batch-store.js";

/** A job's description as the jobs service sends it (times empty for none). */
export function toJobStatus(job: JobDescription): JobStatus {
  return {
    id: job.id,
    status: job.status,
    total: job.total,
    counts: job.counts,
    progress: { pagesRead: job.progress.pages_read, records: job.progress.records },
    createdAt: job.created_at,
    finishedAt: job.finished_at ?? "",
    expiresAt: job.expires_at ?? "",
  };
}

/** A job's description as the gateway answers it, from what the jobs service sent. */
export function fromJobStatus(job: JobStatus | undefined): JobDescription {
  if (!job) throw new Error("the jobs service answered without the job");
  return {
    id: job.id,
    status: job.status as JobState,
    total: job.total,
    counts: job.counts ?? { queued: 0, done: 0, failed: 0, cancelled: 0 },
    progress: { pages_read: job.progress?.pagesRead ?? 0, records: job.progress?.records ?? 0 },
    created_at: job.createdAt,
    finished_at: job.finishedAt || null,
    expires_at: job.expiresAt || null,
  };
}

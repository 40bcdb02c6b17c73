import type { EgressAllowlist, Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import { type BatchSetup, openBatchQueues } from "./batch.js";
import { migrateBatchTables } from "./batch-migrations.js";
import { startBullMqQueues } from "./bullmq-queue.js";
import { startPgBossQueues } from "./pg-boss-queue.js";

/** The settings batch jobs run with (jobs/jobs-config.ts). */
export interface BatchSettings {
  REDIS_URL?: string;
  REDIS_KEY_PREFIX: string;
  GATEWAY_DATABASE_URL?: string;
  WINNOW_EGRESS_ALLOW: EgressAllowlist;
  REQUEST_TIMEOUT_MS: number;
  BATCH_CONCURRENCY: number;
  BATCH_PAGE_ATTEMPTS: number;
  BATCH_PAGE_RETRY_MS: number;
  BATCH_RESULT_TTL_HOURS: number;
  WEBHOOK_ATTEMPTS: number;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_MAX_IN_FLIGHT: number;
}

/**
 * Batch jobs' parts on the jobs worker's database: their tables, the queues (BullMQ
 * on Redis when there is one, else pg-boss on the database). close() gives running pages and webhooks what is left of the grace.
 */
export async function openBatch(
  settings: BatchSettings,
  db: SqlDatabase,
  logger: Logger,
): Promise<{ setup: BatchSetup; close(graceMs: number): Promise<void> }> {
  await migrateBatchTables(db);
  if (settings.REDIS_URL && !settings.GATEWAY_DATABASE_URL) {
    logger.warn(
      "batch jobs are queued in Redis but recorded in this worker's embedded database: jobs workers sharing the " +
        "Redis must share a GATEWAY_DATABASE_URL too",
    );
  }
  const backend = settings.REDIS_URL
    ? startBullMqQueues(settings.REDIS_URL, settings.REDIS_KEY_PREFIX, logger)
    : await startPgBossQueues(db, logger);
  const queues = await openBatchQueues(backend, {
    concurrency: settings.BATCH_CONCURRENCY,
    pageAttempts: settings.BATCH_PAGE_ATTEMPTS,
    pageRetryMs: settings.BATCH_PAGE_RETRY_MS,
    webhookAttempts: settings.WEBHOOK_ATTEMPTS,
    webhookTimeoutMs: settings.WEBHOOK_TIMEOUT_MS,
    leaseMs: 2 * settings.REQUEST_TIMEOUT_MS,
  });
  return {
    setup: {
      db,
      queues,
      egressAllow: settings.WINNOW_EGRESS_ALLOW,
      resultTtlMs: settings.BATCH_RESULT_TTL_HOURS * 3_600_000,
      webhookTimeoutMs: settings.WEBHOOK_TIMEOUT_MS,
      webhookMaxInFlight: settings.WEBHOOK_MAX_IN_FLIGHT,
    },
    close: (graceMs) => backend.close(graceMs),
  };
}

import { type EgressAllowlist, EgressGuard, type Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import type { KeyCheck } from "../keys/key-check.js";
import type { KeyLimits } from "../keys/key-limits.js";
import type { UsageCounter } from "../keys/usage.js";
import type { ListingSettings } from "../listing/read-listing.js";
import type { ScrapeDependencies } from "../scrape/scrape-page.js";
import { DeliverySlots } from "../webhooks/delivery-slots.js";
import type { WebhookSecretCache } from "../webhooks/webhook-secret-cache.js";
import { Webhooks, type WebhookTask } from "../webhooks/webhooks.js";
import { BatchStore } from "./batch-store.js";
import { PageAdmission } from "./page-admission.js";
import { PageRunner, type PageTask } from "./page-runner.js";
import type { QueueBackend, TaskQueue } from "./task-queue.js";

/** How often jobs kept past their time are deleted. */
const CLEANUP_INTERVAL_MS = 60_000;
/** Webhook deliveries this worker makes at once, all accounts together. */
const WEBHOOK_WORKERS = 4;

export interface BatchQueues {
  pages: TaskQueue<PageTask>;
  webhooks: TaskQueue<WebhookTask>;
}

export interface BatchQueueOptions {
  /** Pages this worker scrapes at once for batch jobs (all keys together). */
  concurrency: number;
  /** Tries per page for retryable failures, the first included. */
  pageAttempts: number;
  /** How long after a retryable failure a page's first retry comes (BATCH_PAGE_RETRY_MS); each later one waits twice as long. */
  pageRetryMs: number;
  /** Tries per webhook delivery. */
  webhookAttempts: number;
  /** One webhook delivery attempt's deadline; a delivery running twice as long is taken for lost. */
  webhookTimeoutMs: number;
  /** A page running longer than this is taken for lost and tried again. */
  leaseMs: number;
}

/** The batch jobs' two queues, on whichever store the worker runs with. */
export async function openBatchQueues(backend: QueueBackend, options: BatchQueueOptions): Promise<BatchQueues> {
  return {
    pages: await backend.queue<PageTask>({
      name: "batch-pages",
      attempts: options.pageAttempts,
      backoffMs: options.pageRetryMs,
      concurrency: options.concurrency,
      leaseMs: options.leaseMs,
    }),
    webhooks: await backend.queue<WebhookTask>({
      name: "batch-webhooks",
      attempts: options.webhookAttempts,
      backoffMs: 2_000,
      concurrency: WEBHOOK_WORKERS,
      leaseMs: 2 * options.webhookTimeoutMs,
    }),
  };
}

/** What the jobs worker's main hands over for batch jobs. */
export interface BatchSetup {
  /** The gateway database, its batch tables migrated. */
  db: SqlDatabase;
  queues: BatchQueues;
  egressAllow: EgressAllowlist;
  resultTtlMs: number;
  webhookTimeoutMs: number;
  /** Webhook deliveries in flight at most per receiver and per account. */
  webhookMaxInFlight: number;
}

export interface BatchContext {
  /** What POST /scrape scrapes with: each page is one such scrape. */
  scrape: ScrapeDependencies;
  /** What deliveries are signed with. */
  webhookSecrets: WebhookSecretCache;
  /** A job's pages run under its key as it is now: still valid, with its plan's current limits. */
  keys: KeyCheck;
  keyLimits: KeyLimits;
  usage: UsageCounter;
  requestTimeoutMs: number;
  /** How a URL asking for a whole listing reads it (LISTING_DETAIL_CONCURRENCY, LISTING_IGNORE_ROBOTS). */
  listing: ListingSettings;
  logger: Logger;
}

/** Batch jobs as the jobs service serves them: their store, their queued pages, their events. */
export interface RunningBatch {
  store: BatchStore;
  pages: TaskQueue<PageTask>;
  webhooks: Webhooks;
  /** Stops the cleanup timer. */
  close(): void;
}

/** Starts running queued pages and webhooks, and deleting the jobs kept past their time. */
export function startBatch(setup: BatchSetup, context: BatchContext): RunningBatch {
  const { logger } = context;
  const store = new BatchStore(setup.db, setup.resultTtlMs);
  const webhooks = new Webhooks(
    setup.queues.webhooks,
    store,
    context.webhookSecrets,
    new EgressGuard(setup.egressAllow),
    {
      timeoutMs: setup.webhookTimeoutMs,
      slots: new DeliverySlots(setup.webhookMaxInFlight),
    },
    logger,
  );
  const runner = new PageRunner({
    store,
    scrape: context.scrape,
    admission: new PageAdmission(context.keys, context.keyLimits),
    usage: context.usage,
    events: webhooks,
    requestTimeoutMs: context.requestTimeoutMs,
    listing: context.listing,
    logger,
  });
  setup.queues.pages.work(
    (task, signal) => runner.run(task, signal),
    (page) => runner.giveUp(page),
  );
  setup.queues.webhooks.work(
    (task, signal) => webhooks.deliver(task, signal),
    (delivery) => webhooks.givenUp(delivery),
  );
  const cleanup = setInterval(() => {
    store.deleteExpired().catch((error: unknown) => logger.warn({ err: error }, "could not delete expired batch jobs"));
  }, CLEANUP_INTERVAL_MS);
  cleanup.unref();
  return { store, pages: setup.queues.pages, webhooks, close: () => clearInterval(cleanup) };
}

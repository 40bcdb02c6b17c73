/**
 * The jobs worker: batch jobs' store and queues, their pages (each a scrape, as POST /scrape's) and their webhook
 * deliveries, served to the gateway as winnow.jobs.v1.JobsService. A process of its own, so that no page of a job
 * runs on the event loop that answers requests, and so that it scales on its queue's depth.
 */
import {
  createLogger,
  loadConfigOrExit,
  logFatalErrors,
  onShutdownSignal,
  reportListening,
  serveMetrics,
  startGrpcServer,
  warnOnUnsupportedNode,
} from "@winnow/platform";
import { startBatch } from "./batch/batch.js";
import { openBatch } from "./batch/open-batch.js";
import { ScrapeCache } from "./cache/scrape-cache.js";
import { jobsConfigShape } from "./jobs/jobs-config.js";
import { jobsServiceBinding } from "./jobs/jobs-service.js";
import { exportQueueDepth } from "./jobs/queue-depth.js";
import { KeyCheck } from "./keys/key-check.js";
import { KeyLimits } from "./keys/key-limits.js";
import { UsageCounter } from "./keys/usage.js";
import { openScrapeParts } from "./scrape-parts.js";
import { WebhookSecretCache } from "./webhooks/webhook-secret-cache.js";

const config = loadConfigOrExit(jobsConfigShape);

const logger = createLogger("jobs", config.LOG_LEVEL);
logFatalErrors(logger);
warnOnUnsupportedNode((warning) => logger.warn(warning));
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const { backends, limiters, db, cache, listing, ...parts } = await openScrapeParts(config, "jobs-db", logger);
const batchParts = await openBatch(config, db, logger);
const scrapeCache = cache.store && new ScrapeCache(cache.store, backends.extractor, logger);
const keys = new KeyCheck(backends.auth, {
  size: config.KEY_CACHE_SIZE,
  maxAgeMs: config.KEY_CACHE_MAX_AGE_MS,
  logger,
});
const usage = new UsageCounter(backends.auth, config.USAGE_FLUSH_MS, logger);
const batch = startBatch(batchParts.setup, {
  scrape: {
    backends,
    cache: scrapeCache,
    defaultMaxAgeSeconds: config.CACHE_DEFAULT_MAX_AGE,
    sharedCache: config.CACHE_SHARED,
    storeAlways: config.CACHE_STORE_ALWAYS,
  },
  // Asked of auth at each delivery attempt: a rotation, made through a gateway, signs the next one.
  webhookSecrets: new WebhookSecretCache(backends.auth, 0),
  keys,
  // A scrape slot is held for a page's whole scrape, so its lease outlasts any: twice the request timeout.
  keyLimits: new KeyLimits(limiters, Math.ceil((2 * config.REQUEST_TIMEOUT_MS) / 1000), logger),
  usage,
  requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  listing,
  logger,
});
exportQueueDepth(batchParts.setup.queues, logger);

const server = await startGrpcServer({
  host: config.GRPC_HOST,
  port: config.GRPC_PORT,
  maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
  maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
  logger,
  // The gateway's batch routes are its only callers.
  callers: { gateway: config.WINNOW_GATEWAY_TOKEN.accepted },
  services: [jobsServiceBinding({ batch, maxLiveJobs: config.BATCH_MAX_LIVE_JOBS, logger })],
});
reportListening();
server.setReady(true);

onShutdownSignal(logger, async () => {
  const deadline = Date.now() + config.SHUTDOWN_GRACE_MS;
  await server.shutdown(config.SHUTDOWN_GRACE_MS);
  // Pages and webhooks still running get what is left of the grace; then they are given up, to run again after
  // the restart (or on another worker).
  await batchParts.close(Math.max(0, deadline - Date.now()));
  batch.close();
  keys.close();
  await usage.close();
  await scrapeCache?.settled();
  await parts.close();
});

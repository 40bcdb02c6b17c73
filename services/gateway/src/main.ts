import {
  createLogger,
  loadConfigOrExit,
  logFatalErrors,
  onShutdownSignal,
  reportListening,
  serveMetrics,
} from "@winnow/platform";
import { createGateway } from "./app.js";
import { connectBackends } from "./backends.js";
import { openBatchQueues } from "./batch/batch.js";
import { migrateBatchTables } from "./batch/batch-migrations.js";
import { startBullMqQueues } from "./batch/bullmq-queue.js";
import { startPgBossQueues } from "./batch/pg-boss-queue.js";
import { openCacheStore } from "./cache/open-cache-store.js";
import { configShape } from "./config.js";
import { Drain } from "./http/drain.js";
import { startHttpServer } from "./http/http-server.js";
import { createLimiterFactory } from "./http/rate-limits.js";
import { openGatewayDatabase } from "./store/gateway-database.js";
import { loadWebhookSecrets } from "./webhooks/webhook-secrets.js";

const config = loadConfigOrExit(configShape);

const logger = createLogger("gateway", config.LOG_LEVEL);
logFatalErrors(logger);
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const backends = connectBackends(
  { auth: config.AUTH_ADDR, renderer: config.RENDERER_ADDR, extractor: config.EXTRACTOR_ADDR },
  { gateway: config.WINNOW_GATEWAY_TOKEN, service: config.WINNOW_SERVICE_TOKEN },
);
const drain = new Drain();
const limiters = createLimiterFactory({ redisUrl: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger });
const db = await openGatewayDatabase({
  databaseUrl: config.GATEWAY_DATABASE_URL,
  dataDir: config.WINNOW_DATA_DIR,
  logger,
});
await migrateBatchTables(db);
if (config.REDIS_URL && !config.GATEWAY_DATABASE_URL) {
  logger.warn(
    "batch jobs are queued in Redis but recorded in this gateway's embedded database: gateways sharing the Redis " +
      "must share a GATEWAY_DATABASE_URL too",
  );
}
const queueBackend = config.REDIS_URL
  ? startBullMqQueues(config.REDIS_URL, config.REDIS_KEY_PREFIX, logger)
  : await startPgBossQueues(db, logger);
const queues = await openBatchQueues(queueBackend, {
  concurrency: config.BATCH_CONCURRENCY,
  pageAttempts: config.BATCH_PAGE_ATTEMPTS,
  webhookAttempts: config.WEBHOOK_ATTEMPTS,
  leaseMs: 2 * config.REQUEST_TIMEOUT_MS,
});
// The scrape cache lives in Redis when there is one, else in the gateway's database beside the batch jobs.
const cache = await openCacheStore({
  bounds: {
    ttlSeconds: config.CACHE_TTL_SECONDS,
    maxEntries: config.CACHE_MAX_ENTRIES,
    maxBytes: config.CACHE_MAX_BYTES,
  },
  redis: limiters.redis,
  keyPrefix: config.REDIS_KEY_PREFIX,
  db,
  logger,
});
const webhookSecrets = await loadWebhookSecrets({
  configured: config.WINNOW_ENCRYPTION_KEY,
  dataDir: config.WINNOW_DATA_DIR,
  logger,
});
const gateway = createGateway({
  backends,
  keyCache: { size: config.KEY_CACHE_SIZE, maxAgeMs: config.KEY_CACHE_MAX_AGE_MS },
  usageFlushMs: config.USAGE_FLUSH_MS,
  drain,
  logger,
  requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  maxBodyBytes: config.MAX_BODY_BYTES,
  limiters,
  loginAttemptsPer15Min: config.LOGIN_ATTEMPTS_PER_15_MIN,
  keyFailuresPerMinute: config.KEY_FAILURES_PER_MINUTE,
  trustProxy: config.TRUST_PROXY,
  cache: { store: cache.store, defaultMaxAgeSeconds: config.CACHE_DEFAULT_MAX_AGE, shared: config.CACHE_SHARED },
  batch: {
    db,
    queues,
    secrets: webhookSecrets,
    egressAllow: config.WINNOW_EGRESS_ALLOW,
    maxUrls: config.BATCH_MAX_URLS,
    maxLiveJobs: config.BATCH_MAX_LIVE_JOBS,
    resultTtlMs: config.BATCH_RESULT_TTL_HOURS * 3_600_000,
  },
});
const server = await startHttpServer(gateway.app, config.HOST, config.PORT);
logger.info({ url: `http://${config.HOST}:${server.port}` }, "gateway listening");
reportListening();

onShutdownSignal(logger, async () => {
  // New requests get 503 while the scrapes already running finish, within the grace period.
  const deadline = Date.now() + config.SHUTDOWN_GRACE_MS;
  await Promise.race([drain.idle(), new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS))]);
  await server.close(Math.max(0, deadline - Date.now()));
  // Batch pages and webhooks still running get what is left of the grace; then they are given up, to run again
  // after the restart (or on another gateway).
  await queueBackend.close(Math.max(0, deadline - Date.now()));
  await gateway.close();
  await cache.close();
  await db.close();
  backends.close();
  await limiters.close();
});

import {
  createClient,
  createLogger,
  loadConfigOrExit,
  logFatalErrors,
  onShutdownSignal,
  promiseClient,
  reportListening,
  serveMetrics,
  warnOnUnsupportedNode,
} from "@winnow/platform";
import { JobsServiceClient } from "@winnow/platform/gen/winnow/jobs/v1/jobs.js";
import { createGateway } from "./app.js";
import { configShape } from "./config.js";
import { Drain } from "./http/drain.js";
import { startHttpServer } from "./http/http-server.js";
import { openScrapeParts } from "./scrape-parts.js";

const config = loadConfigOrExit(configShape);

const logger = createLogger("gateway", config.LOG_LEVEL);
logFatalErrors(logger);
warnOnUnsupportedNode((warning) => logger.warn(warning));
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const drain = new Drain();
const { backends, limiters, cache, listing, ...parts } = await openScrapeParts(config, "gateway-db", logger);
// Batch jobs are the jobs worker's: the gateway checks the key, validates, and asks it.
const jobs = promiseClient(createClient(JobsServiceClient, config.JOBS_ADDR, config.WINNOW_GATEWAY_TOKEN.current));
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
  cache: {
    store: cache.store,
    defaultMaxAgeSeconds: config.CACHE_DEFAULT_MAX_AGE,
    shared: config.CACHE_SHARED,
    storeAlways: config.CACHE_STORE_ALWAYS,
  },
  jobs: { client: jobs, maxUrls: config.BATCH_MAX_URLS },
  listing: { ...listing, maxPages: config.MAX_LISTING_PAGES },
});
const server = await startHttpServer(gateway.app, config.HOST, config.PORT);
logger.info({ url: `http://${config.HOST}:${server.port}` }, "gateway listening");
reportListening();

onShutdownSignal(logger, async () => {
  // New requests get 503 while the scrapes already running finish, within the grace period.
  const deadline = Date.now() + config.SHUTDOWN_GRACE_MS;
  await Promise.race([drain.idle(), new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS))]);
  await server.close(Math.max(0, deadline - Date.now()));
  await gateway.close();
  jobs.grpc.close();
  await parts.close();
});

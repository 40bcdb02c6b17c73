import { env, grpcServiceConfig } from "@winnow/platform";
import { scrapeConfigShape } from "../config.js";

/** The jobs worker's environment variables (jobs-main.ts); see docs/configuration.md. */
export const jobsConfigShape = {
  ...grpcServiceConfig({ grpcPort: 50054, metricsPort: 9468 }),
  ...scrapeConfigShape,
  /** Addresses webhooks may go to although they are not public (as the renderer's egress guard allows). */
  WINNOW_EGRESS_ALLOW: env.egressAllowlist(),
  /** Batch jobs running at once per API key. */
  BATCH_MAX_LIVE_JOBS: env.positiveInt(5, 1_000),
  /** Batch pages this worker scrapes at once, all keys together (each key within its own plan). */
  BATCH_CONCURRENCY: env.positiveInt(8, 256),
  /** Tries per batch page whose failure is retryable, the first included. */
  BATCH_PAGE_ATTEMPTS: env.positiveInt(3, 10),
  /**
   * A batch page's first retry after a retryable failure comes this long (to twice as long) after it, the next twice
   * that: long enough for a backend to restart (the supervisor's delay, a browser's launch, the gRPC reconnection
   * backoff), where retries at 1 and 2 s ended most pages of a restart failed. Whole seconds (pg-boss counts them).
   */
  BATCH_PAGE_RETRY_MS: env.wholeNumber(1_000, 300_000).default(5_000),
  /** How long a finished job's results are kept before they are deleted. */
  BATCH_RESULT_TTL_HOURS: env.positiveInt(24, 24 * 90),
  /** Tries per webhook delivery (with backoff) before it is given up. */
  WEBHOOK_ATTEMPTS: env.positiveInt(8, 20),
  /** One delivery attempt's whole time (connecting, the receiver's answer, reading it) before it is cut off. */
  WEBHOOK_TIMEOUT_MS: env.positiveInt(10_000, 60_000),
  /** Deliveries in flight per receiver and per account, below the 4 delivery workers, so none can hold them all. */
  WEBHOOK_MAX_IN_FLIGHT: env.positiveInt(2, 3),
};

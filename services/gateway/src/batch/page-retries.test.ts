/**
 * The batch pages queue as the gateway opens it, on both stores (pg-boss on
 * PGlite, BullMQ on Redis): a page whose backend is down while it restarts
 * (each try thrown, as PageRunner throws a retryable failure) is tried again
 * after the restart, within the default attempts, instead of being given up.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import type { SqlDatabase } from "@winnow/platform/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobsConfigShape } from "../jobs/jobs-config.js";
import { openGatewayDatabase } from "../store/gateway-database.js";
import { openBatchQueues } from "./batch.js";
import { startBullMqQueues } from "./bullmq-queue.js";
import { startPgBossQueues } from "./pg-boss-queue.js";
import type { QueueBackend } from "./task-queue.js";

const logger = createLogger("page-retries-test", "silent");
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The jobs worker's defaults for a page's tries and its first retry's delay. */
const DEFAULT_ATTEMPTS = jobsConfigShape.BATCH_PAGE_ATTEMPTS.parse(undefined);
const DEFAULT_RETRY_MS = jobsConfigShape.BATCH_PAGE_RETRY_MS.parse(undefined);
/**
 * How long the backend is down: a renderer's restart under the supervisor (its 0.5 s delay, the browser's launch,
 * the gateway's gRPC reconnection backoff), as the red team saw one outlast retries at 1 and 2 s.
 */
const RESTART_MS = 8_000;

let dataDir: string;
let db: SqlDatabase;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "winnow-retries-"));
  await seedPgliteDirectory(path.join(dataDir, "jobs-db"));
  db = await openGatewayDatabase({ databaseUrl: undefined, dataDir, embeddedName: "jobs-db", logger });
});
afterAll(async () => {
  await db?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const backends: [string, () => Promise<QueueBackend>][] = [
  ["pg-boss on PGlite", () => startPgBossQueues(db, logger)],
  ["BullMQ on Redis", async () => startBullMqQueues(REDIS_URL, `page-retries-${randomUUID()}:`, logger)],
];

describe.each(backends)("page retries: %s", (_, start) => {
  it("a page failing while its backend restarts runs once it is back, within the default attempts", async () => {
    const backend = await start();
    const { pages } = await openBatchQueues(backend, {
      concurrency: 1,
      pageAttempts: DEFAULT_ATTEMPTS,
      pageRetryMs: DEFAULT_RETRY_MS,
      webhookAttempts: 1,
      leaseMs: 60_000,
    });
    let downUntil = 0;
    let tries = 0;
    let end: "done" | "given up" | undefined;
    pages.work(
      async () => {
        tries++;
        if (Date.now() < downUntil) throw new Error("backend unavailable");
        end = "done";
        return undefined;
      },
      async () => {
        end = "given up";
      },
    );
    downUntil = Date.now() + RESTART_MS;
    await pages.add([{ jobId: randomUUID(), index: 0 }], "a");
    while (!end) await sleep(100);
    await backend.close(1_000);
    expect(end).toBe("done");
    expect(tries).toBeLessThanOrEqual(DEFAULT_ATTEMPTS);
  });
});

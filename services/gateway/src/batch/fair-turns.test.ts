/**
 * Keys take turns on both task queues, on the real stores (pg-boss on the
 * gateway's PGlite database, BullMQ on the Redis server): a key that comes
 * with a few tasks while another key's backlog of hundreds waits has them
 * taken within a few takes, whether that backlog runs or keeps waiting for
 * its key's limits (tasks that come back later, spending no attempt).
 * Counted in takes, not in time. And each queue's depth, as the jobs worker exports it.
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
import { openGatewayDatabase } from "../store/gateway-database.js";
import { startBullMqQueues } from "./bullmq-queue.js";
import { startPgBossQueues } from "./pg-boss-queue.js";
import type { QueueBackend, TaskOutcome } from "./task-queue.js";

const logger = createLogger("fair-turns-test", "silent");
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/** The backlog of key "a", and the tasks key "b" adds once some of it has been taken. */
const BACKLOG = 500;
const FEW = 3;
const CONCURRENCY = 4;
/**
 * Takes by which b's tasks must all have been taken, counted from b's add: a's and b's turns in alternation, and a
 * round of slack. No task is taken ahead of a free worker, so none taken before b's add stands in b's way.
 */
const WITHIN = 2 * FEW + 3;

let dataDir: string;
let db: SqlDatabase;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "winnow-fair-"));
  await seedPgliteDirectory(path.join(dataDir, "jobs-db"));
  db = await openGatewayDatabase({ databaseUrl: undefined, dataDir, embeddedName: "jobs-db", logger });
});
afterAll(async () => {
  await db?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const backends: [string, () => Promise<QueueBackend>][] = [
  ["pg-boss on PGlite", () => startPgBossQueues(db, logger)],
  ["BullMQ on Redis", async () => startBullMqQueues(REDIS_URL, `fair-turns-${randomUUID()}:`, logger)],
];

describe.each(backends)("keys take turns: %s", (_, start) => {
  /**
   * Runs a's backlog with `a` as a's handler, adds b's few once a's tasks have been taken 20 times, and answers
   * the number of takes (of any task) from b's add to b's last task taken.
   */
  async function takesUntilBServed(name: string, a: () => Promise<TaskOutcome>): Promise<number> {
    const backend = await start();
    const queue = await backend.queue<{ key: string; n: number }>({
      name,
      attempts: 3,
      backoffMs: 1_000,
      concurrency: CONCURRENCY,
      leaseMs: 60_000,
    });
    const taken: string[] = [];
    const bTaken = new Set<number>();
    queue.work(
      async ({ data }) => {
        taken.push(data.key);
        if (data.key === "a") return a();
        bTaken.add(data.n);
        await sleep(5);
        return undefined;
      },
      async () => {},
    );
    await queue.add(
      Array.from({ length: BACKLOG }, (_, n) => ({ key: "a", n })),
      "a",
    );
    while (taken.length < 20) await sleep(10);
    const before = taken.length;
    await queue.add(
      Array.from({ length: FEW }, (_, n) => ({ key: "b", n })),
      "b",
    );
    while (bTaken.size < FEW) await sleep(10);
    const takes = taken.lastIndexOf("b") + 1 - before;
    await backend.close(1_000);
    return takes;
  }

  it("a key's few tasks are taken within a few takes while another key's backlog runs", async () => {
    const takes = await takesUntilBServed(`runs-${randomUUID()}`, async () => {
      await sleep(5);
      return undefined;
    });
    // In arrival order, b's tasks would wait behind the rest of a's backlog (hundreds of takes).
    expect(takes).toBeLessThanOrEqual(WITHIN);
  });

  it("a key's few tasks are taken within a few takes while another key's backlog keeps waiting for its limits", async () => {
    // Every task of a waits for its key's limits (as PageAdmission answers a throttled key's pages), again and again.
    const takes = await takesUntilBServed(`waits-${randomUUID()}`, async () => ({ laterMs: 20 }));
    expect(takes).toBeLessThanOrEqual(WITHIN);
  });

  it("counts the tasks waiting as the queue's depth (what the jobs workers scale on), and none once they ran", async () => {
    const backend = await start();
    const queue = await backend.queue<{ n: number }>({
      name: `depth-${randomUUID()}`,
      attempts: 1,
      backoffMs: 1_000,
      concurrency: CONCURRENCY,
      leaseMs: 60_000,
    });
    expect(await queue.depth()).toBe(0);
    await queue.add(
      Array.from({ length: FEW }, (_, n) => ({ n })),
      "a",
    );
    expect(await queue.depth()).toBe(FEW);
    const ran = new Set<number>();
    queue.work(
      async ({ data }) => {
        ran.add(data.n);
        return undefined;
      },
      async () => {},
    );
    while (ran.size < FEW) await sleep(10);
    expect(await queue.depth()).toBe(0);
    await backend.close(1_000);
  });
});

describe("a line that must wait: pg-boss on PGlite", () => {
  it("puts the key's whole backlog off in one step, not task by task", async () => {
    const backend = await startPgBossQueues(db, logger);
    const name = `line-${randomUUID()}`;
    const queue = await backend.queue<{ n: number }>({
      name,
      attempts: 3,
      backoffMs: 1_000,
      concurrency: CONCURRENCY,
      leaseMs: 60_000,
    });
    let takes = 0;
    // Every task of a finds its key's minute used up, as PageAdmission answers a throttled key's pages.
    queue.work(
      async () => {
        takes += 1;
        return { laterMs: 60_000, line: true };
      },
      async () => {},
    );
    await queue.add(
      Array.from({ length: BACKLOG }, (_, n) => ({ n })),
      "a",
    );
    const due = async () =>
      (
        await db.query<{ due: number }>(
          "SELECT count(*)::int AS due FROM pgboss.job WHERE name = $1 AND state < 'active' AND start_after <= now()",
          [name],
        )
      )[0]!.due;
    while ((await due()) > 0) await sleep(10);
    await backend.close(1_000);
    // Task by task, each of the backlog's tasks would have been taken once to learn that it waits.
    expect(takes).toBeGreaterThan(0);
    expect(takes).toBeLessThanOrEqual(2 * CONCURRENCY);
  });
});

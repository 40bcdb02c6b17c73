/**
 * Keys take turns on both task queues, on the real stores (pg-boss on the
 * gateway's PGlite database, BullMQ on the Redis server): a key that comes
 * with a few tasks while another key's backlog of hundreds waits has them
 * taken within a few takes, whether that backlog runs or keeps waiting for
 * its key's limits (tasks that come back later, spending no attempt).
 * Counted in takes, not in time. And each queue's depth, as the jobs worker exports it.
 * On PGlite, whose statements run on the jobs worker's one thread, a key's
 * work there is bounded: a throttled line is held without writing its tasks,
 * and a large add lets other keys' tasks be taken before it is all written.
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

describe("one key's work on the embedded database's one thread: pg-boss on PGlite", () => {
  /** Rows pg-boss's table for queue `name` has had written (inserted or updated), as Postgres counts them. */
  const rowsWritten = async (name: string) => {
    await db.query("SELECT pg_stat_force_next_flush()");
    const [row] = await db.query<{ written: number }>(
      `SELECT (n_tup_ins + n_tup_upd)::int AS written FROM pg_stat_user_tables
       WHERE schemaname = 'pgboss' AND relname = (SELECT partition_name FROM pgboss.queue WHERE name = $1)`,
      [name],
    );
    return row!.written;
  };

  it("holds the key's whole line in one step, writing none of its tasks waiting, while another key's run", async () => {
    const backend = await startPgBossQueues(db, logger);
    const name = `line-${randomUUID()}`;
    const queue = await backend.queue<{ key: string; n: number }>({
      name,
      attempts: 3,
      backoffMs: 1_000,
      concurrency: CONCURRENCY,
      leaseMs: 60_000,
    });
    let aTakes = 0;
    const bTaken = new Set<number>();
    await queue.add(
      Array.from({ length: BACKLOG }, (_, n) => ({ key: "a", n })),
      "a",
    );
    const written = await rowsWritten(name);
    queue.work(
      async ({ data }) => {
        if (data.key === "b") {
          bTaken.add(data.n);
          return undefined;
        }
        aTakes += 1;
        // Every task of a finds its key's minute used up, as PageAdmission answers a throttled key's pages.
        return { laterMs: 60_000, line: true };
      },
      async () => {},
    );
    while (aTakes === 0) await sleep(10);
    await queue.add(
      Array.from({ length: FEW }, (_, n) => ({ key: "b", n })),
      "b",
    );
    while (bTaken.size < FEW) await sleep(10);
    const writtenSince = (await rowsWritten(name)) - written;
    await backend.close(1_000);
    // Task by task, each of the backlog's tasks would have been taken once to learn that it waits.
    expect(aTakes).toBeLessThanOrEqual(2 * CONCURRENCY);
    // b's tasks added, taken and completed, and a's taken ones put off: put off in its rows, a's whole line was
    // rewritten at each of its waits (hundreds of rows here, thousands for a real backlog, every time).
    expect(writtenSince).toBeLessThanOrEqual(3 * FEW + 3 * 2 * CONCURRENCY);
  });

  it("takes another key's tasks while a large add is still being written", async () => {
    const backend = await startPgBossQueues(db, logger);
    const queue = await backend.queue<{ key: string; n: number }>({
      name: `large-add-${randomUUID()}`,
      attempts: 1,
      backoffMs: 1_000,
      concurrency: CONCURRENCY,
      leaseMs: 60_000,
    });
    const bTaken = new Set<number>();
    queue.work(
      async ({ data }) => {
        if (data.key === "b") bTaken.add(data.n);
        return undefined;
      },
      async () => {},
    );
    let aAdded = false;
    const aAdding = queue
      .add(
        Array.from({ length: 10 * BACKLOG }, (_, n) => ({ key: "a", n })),
        "a",
      )
      .then(() => {
        aAdded = true;
      });
    await queue.add(
      Array.from({ length: FEW }, (_, n) => ({ key: "b", n })),
      "b",
    );
    while (bTaken.size < FEW) await sleep(10);
    const bTakenFirst = !aAdded;
    await aAdding;
    await backend.close(1_000);
    // Written in one statement, a's thousands of tasks held the embedded database's one thread until all were in.
    expect(bTakenFirst).toBe(true);
  });

  it("runs the held line once its hold is over", async () => {
    const backend = await startPgBossQueues(db, logger);
    const queue = await backend.queue<{ n: number }>({
      name: `line-over-${randomUUID()}`,
      attempts: 1,
      backoffMs: 1_000,
      concurrency: CONCURRENCY,
      leaseMs: 60_000,
    });
    const waited = new Set<number>();
    const ran = new Set<number>();
    queue.work(
      async ({ data }) => {
        // Each task's first take finds its line out of its limits for a moment; waiting spends none of its one attempt.
        if (!waited.has(data.n)) {
          waited.add(data.n);
          return { laterMs: 50, line: true };
        }
        ran.add(data.n);
        return undefined;
      },
      async () => {},
    );
    await queue.add(
      Array.from({ length: FEW * CONCURRENCY }, (_, n) => ({ n })),
      "a",
    );
    while (ran.size < FEW * CONCURRENCY) await sleep(10);
    await backend.close(1_000);
  });
});

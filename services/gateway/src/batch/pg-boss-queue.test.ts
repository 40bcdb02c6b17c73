/**
 * The embedded task queue (pg-boss on the gateway's PGlite database), on the
 * real thing: one poll takes tasks for several workers, never more running at
 * once than the queue's concurrency, and one statement marks several done;
 * tasks taken but not started when the queue closes run again later.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import type { SqlDatabase } from "@winnow/platform/sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openGatewayDatabase } from "../store/gateway-database.js";
import { startPgBossQueues } from "./pg-boss-queue.js";
import type { QueueSpec } from "./task-queue.js";

const logger = createLogger("queue-test", "silent");
/** pg-boss's statements that take tasks (fetchNextJob) and mark them done (completeJobs). */
const TAKE = /FROM pgboss\.job\s+WHERE name = \$1\s+AND state < 'active'/;
const COMPLETE = /UPDATE pgboss\.job\s+SET completed_on = now\(\),\s+state = 'completed'/;

describe("pg-boss queue on the embedded database", () => {
  let dataDir: string;
  let db: SqlDatabase;
  /** Polls that took at least one task, and statements that marked tasks done, by queue name. */
  const statements = { take: new Map<string, number>(), complete: new Map<string, number>() };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-queue-"));
    await seedPgliteDirectory(path.join(dataDir, "jobs-db"));
    const opened = await openGatewayDatabase({ databaseUrl: undefined, dataDir, embeddedName: "jobs-db", logger });
    db = {
      ...opened,
      async query<Row>(sql: string, params?: unknown[]) {
        const rows = await opened.query<Row>(sql, params);
        const kind = TAKE.test(sql) && rows.length > 0 ? "take" : COMPLETE.test(sql) ? "complete" : undefined;
        if (kind) statements[kind].set(String(params?.[0]), (statements[kind].get(String(params?.[0])) ?? 0) + 1);
        return rows;
      },
    };
  });

  afterAll(async () => {
    await db?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const spec = (name: string, concurrency: number, attempts = 3): QueueSpec => ({
    name,
    attempts,
    backoffMs: 1_000,
    concurrency,
    leaseMs: 60_000,
  });

  it("takes tasks for several workers per poll and marks several done at once, running at most its concurrency", async () => {
    const backend = await startPgBossQueues(db, logger);
    const queue = await backend.queue<{ n: number }>(spec("many", 8));
    const ran: number[] = [];
    let running = 0;
    let mostAtOnce = 0;
    queue.work(
      async ({ data }) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await sleep(20);
        running--;
        ran.push(data.n);
        return undefined;
      },
      async () => {},
    );
    await queue.add(Array.from({ length: 32 }, (_, n) => ({ n })));
    while (ran.length < 32) await sleep(20);
    await backend.close(1_000);

    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, n) => n));
    expect(mostAtOnce).toBe(8);
    // One poll and one completion per task would be 32 each.
    expect(statements.take.get("many")).toBeLessThanOrEqual(8);
    expect(statements.complete.get("many")).toBeLessThanOrEqual(8);
    const states = await db.query<{ state: string; count: number }>(
      "SELECT state, count(*)::int AS count FROM pgboss.job WHERE name = 'many' GROUP BY state",
    );
    expect(states).toEqual([{ state: "completed", count: 32 }]);
  });

  it("leaves the tasks it had not started when it closes, their attempts unspent: they run later", async () => {
    const first = await startPgBossQueues(db, logger);
    // One attempt each: a task counted as tried would be given up instead of run again.
    const queue = await first.queue<{ n: number }>(spec("handed-back", 2, 1));
    const started = new Set<number>();
    queue.work(
      async ({ data }, signal) => {
        started.add(data.n);
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped"))));
      },
      async () => {},
    );
    await queue.add(Array.from({ length: 6 }, (_, n) => ({ n })));
    while (started.size < 2) await sleep(20);
    await first.close(100);

    const second = await startPgBossQueues(db, logger);
    const again = await second.queue<{ n: number }>(spec("handed-back", 2, 1));
    const ran = new Set<number>();
    const givenUp = new Set<number>();
    again.work(
      async ({ data }) => {
        ran.add(data.n);
        return undefined;
      },
      async (data) => {
        givenUp.add(data.n);
      },
    );
    // The two cut short spent their one attempt and are given up; the four never started run.
    for (let waited = 0; ran.size + givenUp.size < 6 && waited < 20_000; waited += 100) await sleep(100);
    await second.close(1_000);
    expect([...givenUp].sort()).toEqual([...started].sort());
    expect([...ran, ...givenUp].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

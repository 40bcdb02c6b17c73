import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import PgBoss from "pg-boss";
import type { QueueBackend, QueueSpec, TaskQueue } from "./task-queue.js";

/** How long an idle worker waits before looking for tasks again (tasks added by this process wake it at once). */
const IDLE_POLL_MS = 250;

/**
 * Queues in the gateway database with pg-boss: PGlite for `npm start`, or
 * the Postgres server every gateway shares. pg-boss takes the database as
 * an `executeSql` function; PGlite's extended protocol runs one statement at
 * a time, so pg-boss's multi-statement scripts (its migrations and
 * maintenance, which carry no parameters) go through exec instead.
 */
export async function startPgBossQueues(db: SqlDatabase, logger: Logger): Promise<QueueBackend> {
  const boss = new PgBoss({
    db: {
      async executeSql(text: string, values?: unknown[]) {
        try {
          return { rows: await db.query(text, values) };
        } catch (error) {
          if (values?.length || !isMultiStatementError(error)) throw error;
          await db.exec(text);
          return { rows: [] };
        }
      },
    },
    schedule: false,
  });
  boss.on("error", (error: Error) => logger.warn({ err: error }, "job queue maintenance failed"));
  await boss.start();
  /** Stops the loops taking tasks. */
  const stopping = new AbortController();
  /** Aborts the tasks still running once the grace is over. */
  const controller = new AbortController();
  const loops: Promise<void>[] = [];

  return {
    async queue<T extends object>(spec: QueueSpec): Promise<TaskQueue<T>> {
      // Tasks whose attempts are used up (thrown, or expired past their lease) are copied here by pg-boss.
      const givenUpName = `${spec.name}-given-up`;
      await boss.createQueue(givenUpName);
      await boss.createQueue(spec.name);
      const options = {
        retryLimit: spec.attempts - 1,
        retryDelay: Math.max(1, Math.round(spec.backoffMs / 1000)),
        retryBackoff: true,
        expireInSeconds: Math.max(1, Math.ceil(spec.leaseMs / 1000)),
        deadLetter: givenUpName,
      };
      let wake = new AbortController();
      /** Runs one task of `name` with `run`, if one is due; false when there was none. */
      const runOne = async (name: string, run: (job: PgBoss.JobWithMetadata<T>) => Promise<void>): Promise<boolean> => {
        const [job] = await boss.fetch<T>(name, { batchSize: 1, includeMetadata: true });
        if (!job) return false;
        try {
          await run(job);
          await boss.complete(name, job.id);
        } catch (error) {
          await boss.fail(name, job.id, { message: String((error as Error)?.message ?? error) });
        }
        return true;
      };
      const loop = (name: string, run: (job: PgBoss.JobWithMetadata<T>) => Promise<void>) =>
        loops.push(
          (async () => {
            while (!stopping.signal.aborted) {
              const ran = await runOne(name, run).catch((error: unknown) => {
                if (!stopping.signal.aborted) logger.warn({ err: error, queue: name }, "job queue failed");
                return false;
              });
              if (!ran) {
                const signal = AbortSignal.any([stopping.signal, wake.signal]);
                await sleep(IDLE_POLL_MS, undefined, { signal }).catch(() => {});
              }
            }
          })(),
        );
      return {
        async add(items) {
          if (items.length === 0) return;
          await boss.insert(items.map((data) => ({ name: spec.name, data, ...options })));
          wake.abort();
          wake = new AbortController();
        },
        work(handler, givenUp) {
          for (let i = 0; i < spec.concurrency; i++) {
            loop(spec.name, async (job) => {
              const lastAttempt = job.retryCount >= job.retryLimit;
              const outcome = await handler({ data: job.data, lastAttempt }, controller.signal);
              // Later, as a new task with the retries this one has left (pg-boss has no delay that spends none).
              if (outcome) {
                const startAfter = new Date(Date.now() + outcome.laterMs);
                const retryLimit = job.retryLimit - job.retryCount;
                await boss.insert([{ name: spec.name, data: job.data, ...options, retryLimit, startAfter }]);
              }
            });
          }
          loop(givenUpName, (job) => givenUp(job.data));
        },
      };
    },
    async close(graceMs) {
      stopping.abort();
      await Promise.race([Promise.all(loops), sleep(graceMs, undefined, { ref: false })]);
      controller.abort();
      await Promise.all(loops);
      await boss.stop({ graceful: false, wait: true, close: false });
    },
  };
}

function isMultiStatementError(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "42601" && /multiple commands/.test(String((error as Error).message));
}

import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import PgBoss from "pg-boss";
import type { QueueBackend, QueueSpec, Task, TaskQueue } from "./task-queue.js";

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
      await boss.createQueue(spec.name);
      let wake = new AbortController();
      /** Tasks done since the last poll: completed together with it, one statement for all. */
      const finished: string[] = [];
      const runOne = async (
        job: PgBoss.JobWithMetadata<T>,
        handler: (task: Task<T>, signal: AbortSignal) => Promise<void>,
      ): Promise<void> => {
        try {
          await handler(
            { data: job.data, attempt: job.retryCount + 1, lastAttempt: job.retryCount >= job.retryLimit },
            controller.signal,
          );
          finished.push(job.id);
        } catch (error) {
          await boss.fail(spec.name, job.id, { message: String((error as Error)?.message ?? error) });
        }
      };
      return {
        async add(items) {
          if (items.length === 0) return;
          await boss.insert(
            items.map((data) => ({
              name: spec.name,
              data,
              retryLimit: spec.attempts - 1,
              retryDelay: Math.max(1, Math.round(spec.backoffMs / 1000)),
              retryBackoff: true,
              expireInSeconds: Math.max(1, Math.ceil(spec.leaseMs / 1000)),
            })),
          );
          wake.abort();
          wake = new AbortController();
        },
        work(handler) {
          // One loop fetches for all the queue's workers, `concurrency` tasks per poll, and starts them as workers
          // free up (at most that many wait here); it marks the tasks done since the last poll complete at once. A
          // poll or a completion per task cost PGlite, on this thread, more than a page's own statements: a batch job
          // was slower than the same pages scraped one by one (bench:batch). A task done but not yet marked when
          // the gateway dies runs again after its lease, and the page runner finds its page finished.
          const running = new Set<Promise<void>>();
          let fetched: PgBoss.JobWithMetadata<T>[] = [];
          const completeFinished = async () => {
            if (finished.length === 0) return;
            await boss
              .complete(spec.name, finished.splice(0))
              .catch((error: unknown) => logger.warn({ err: error, queue: spec.name }, "job queue failed"));
          };
          loops.push(
            (async () => {
              while (!stopping.signal.aborted) {
                if (fetched.length === 0) {
                  await completeFinished();
                  fetched = await boss
                    .fetch<T>(spec.name, { batchSize: spec.concurrency, includeMetadata: true, priority: false })
                    .catch((error: unknown) => {
                      if (!stopping.signal.aborted) logger.warn({ err: error, queue: spec.name }, "job queue failed");
                      return [];
                    });
                  if (fetched.length === 0) {
                    const signal = AbortSignal.any([stopping.signal, wake.signal]);
                    await sleep(IDLE_POLL_MS, undefined, { signal }).catch(() => {});
                    continue;
                  }
                }
                while (fetched.length > 0 && running.size < spec.concurrency) {
                  const run = runOne(fetched.shift()!, handler)
                    .catch((error: unknown) => logger.warn({ err: error, queue: spec.name }, "job queue failed"))
                    .finally(() => running.delete(run));
                  running.add(run);
                }
                if (fetched.length > 0) await Promise.race(running);
              }
              // Taken but not started: back to the queue, as a task aborted by the shutdown is.
              if (fetched.length > 0) {
                await boss
                  .fail(
                    spec.name,
                    fetched.map((job) => job.id),
                  )
                  .catch((error: unknown) => logger.warn({ err: error, queue: spec.name }, "job queue failed"));
              }
              await Promise.all(running);
              await completeFinished();
            })(),
          );
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

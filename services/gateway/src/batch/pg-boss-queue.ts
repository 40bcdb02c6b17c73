import { setImmediate, setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import PgBoss from "pg-boss";
import { KeyHolds } from "./key-holds.js";
import type { QueueBackend, QueueSpec, TaskQueue } from "./task-queue.js";

/** How long an idle worker waits before looking for tasks again (tasks added by this process wake it at once). */
const IDLE_POLL_MS = 250;
/** Tasks written per statement when adding: each a moment of PGlite's (and this thread's) time, not a whole job's. */
const ADD_CHUNK = 100;
/** pg-boss's priority is an integer: turns past this one share it, in arrival order. */
const LAST_TURN = 2_147_483_647;

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
        name: spec.name,
        retryLimit: spec.attempts - 1,
        retryDelay: Math.max(1, Math.round(spec.backoffMs / 1000)),
        retryBackoff: true,
        expireInSeconds: Math.max(1, Math.ceil(spec.leaseMs / 1000)),
        deadLetter: givenUpName,
      };
      let wake = new AbortController();
      const warn = (name: string) => (error: unknown) => {
        if (!stopping.signal.aborted) logger.warn({ err: error, queue: name }, "job queue failed");
      };
      /**
       * Runs the tasks of `name` with `run`, `concurrency` at a time. One loop fetches for all of them, as many
       * tasks per poll as workers are free, and marks the tasks done since the last poll complete at once: a
       * completion per task cost PGlite, on this thread, more than a page's own statements (a batch job was slower
       * than the same pages scraped one by one, bench:batch). A task done but not yet marked when the gateway dies
       * runs again after its lease, and the page runner finds its page finished. `run` answers whether the task is
       * done; one it put back (to run later) is not.
       */
      const pump = (
        name: string,
        concurrency: number,
        holds: KeyHolds,
        run: (job: TakenTask<T>) => Promise<boolean>,
      ) => {
        const finished: string[] = [];
        const running = new Set<Promise<void>>();
        const completeFinished = async () => {
          if (finished.length > 0) await boss.complete(name, finished.splice(0)).catch(warn(name));
        };
        const runOne = async (job: TakenTask<T>) => {
          try {
            if (await run(job)) finished.push(job.id);
          } catch (error) {
            await boss.fail(name, job.id, { message: String((error as Error)?.message ?? error) });
          }
        };
        loops.push(
          (async () => {
            while (!stopping.signal.aborted) {
              // PGlite answers on this thread without I/O: tasks that end at once (pages that wait for their key's
              // limits) would keep this loop in promise callbacks, and timers and requests would never run.
              await setImmediate();
              // Tasks are taken only for workers that are free: taken ahead, they would hold their places while a
              // key that comes later waits behind them (in arrival order, not in turns).
              if (running.size >= concurrency) {
                await Promise.race(running);
                continue;
              }
              await completeFinished();
              const fetched =
                (await take<T>(db, name, concurrency - running.size, holds.held()).catch(warn(name))) ?? [];
              if (fetched.length === 0) {
                const signal = AbortSignal.any([stopping.signal, wake.signal]);
                await sleep(IDLE_POLL_MS, undefined, { signal }).catch(() => {});
                continue;
              }
              for (const job of fetched) {
                const started = runOne(job)
                  .catch(warn(name))
                  .finally(() => running.delete(started));
                running.add(started);
              }
            }
            await Promise.all(running);
            await completeFinished();
          })(),
        );
      };
      return {
        // Created and retrying tasks: those not yet taken by a worker.
        depth: () => boss.getQueueSize(spec.name),
        async add(items, key = "") {
          if (items.length === 0) return;
          const first = await nextTurn(db, spec.name, key);
          // In chunks, the tasks written so far taken meanwhile: PGlite runs each statement on this thread, and a
          // large job's thousands in one would hold every other key's pages (and the workers' polls) until all were in.
          for (let from = 0; from < items.length; from += ADD_CHUNK) {
            await boss.insert(
              items.slice(from, from + ADD_CHUNK).map((data, i) => ({
                data,
                ...options,
                singletonKey: key,
                priority: -Math.min(first + from + i, LAST_TURN),
              })),
            );
            wake.abort();
            wake = new AbortController();
            await setImmediate();
          }
        },
        work(handler, givenUp) {
          const holds = new KeyHolds();
          pump(spec.name, spec.concurrency, holds, async (job) => {
            const lastAttempt = job.retryCount >= job.retryLimit;
            const outcome = await handler({ data: job.data, lastAttempt }, controller.signal);
            if (!outcome) return true;
            const key = job.singletonKey ?? "";
            const startAfter = new Date(Date.now() + outcome.laterMs);
            // A task whose whole line waits keeps its turn, the line's first: no task of its key is taken before it
            // while the line is held. A task that waits alone takes the next turn of its key's line, as a task added then
            // would: kept at the head, it would come back ahead of other keys' tasks each time it waits.
            if (outcome.line) holds.hold(key, startAfter.getTime());
            const turn = outcome.line ? undefined : await nextTurn(db, spec.name, key);
            await putBack(db, spec.name, job.id, startAfter, turn);
            return false;
          });
          pump(givenUpName, 1, new KeyHolds(), async (job) => {
            await givenUp(job.data);
            return true;
          });
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

/**
 * The turn of the next task of `key` in queue `name`, fair queueing on pg-boss's own order (highest priority
 * first; a task's priority is its turn negated): a key's tasks take turns 1, 2, 3... after the later of its own
 * last task waiting and the earliest turn waiting of any key. So a key with thousands of tasks waiting holds
 * one turn per round, and a key that comes later starts at the round being served, not behind that backlog.
 * Read from the tasks waiting (pg-boss's singleton_key, a plain column in a standard queue, holds the key),
 * turns start again from 1 whenever the queue empties.
 */
async function nextTurn(db: SqlDatabase, name: string, key: string): Promise<number> {
  const [row] = await db.query<{ turn: number }>(
    `SELECT LEAST(GREATEST(COALESCE(-max(priority), 0), COALESCE(-min(priority) FILTER (WHERE singleton_key = $2), 0))::bigint + 1, $3)::int AS turn
     FROM pgboss.job WHERE name = $1 AND state < 'active'`,
    [name, key, LAST_TURN],
  );
  return row!.turn;
}

/** A task as take() answers it: what its handler is given, and what the queue keeps it by. */
interface TakenTask<T> {
  id: string;
  data: T;
  singletonKey: string | null;
  retryCount: number;
  retryLimit: number;
}

/**
 * Takes up to `count` tasks of queue `name` for this process's free workers: pg-boss's own fetch (fetchNextJob, for
 * a standard queue: due tasks, highest priority first, locked ones skipped, the retry counted on a task taken
 * again), except the lines of `held` keys. A held line is left as it is, so holding a key costs nothing per task
 * waiting in its line: putting off each of a throttled key's thousands of tasks rewrote them all at every wait (its
 * slots' every 250 ms, its minute's at each reset), on the one thread PGlite shares with every other key's pages.
 */
function take<T>(db: SqlDatabase, name: string, count: number, held: string[]): Promise<TakenTask<T>[]> {
  return db.query<TakenTask<T>>(
    `WITH next AS (
       SELECT id FROM pgboss.job
       WHERE name = $1 AND state < 'active' AND start_after < now() AND NOT (COALESCE(singleton_key, '') = ANY($3::text[]))
       ORDER BY priority DESC, created_on, id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE pgboss.job j SET state = 'active', started_on = now(),
       retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
     FROM next WHERE j.name = $1 AND j.id = next.id
     RETURNING j.id, j.data, j.singleton_key AS "singletonKey", j.retry_count AS "retryCount", j.retry_limit AS "retryLimit"`,
    [name, count, held],
  );
}

/**
 * Puts a task taken back into its queue until `startAfter`, at `turn` if given (else at its own), with its attempts
 * unspent: untaken as it was (pg-boss counts a retry when it takes a task it had taken before), as pg-boss has no
 * delay that spends none. Only while it is still this worker's: one whose lease ran out is pg-boss's to retry.
 */
async function putBack(db: SqlDatabase, name: string, id: string, startAfter: Date, turn?: number): Promise<void> {
  await db.query(
    `UPDATE pgboss.job SET state = 'created', started_on = NULL, start_after = $3, priority = COALESCE(-$4::int, priority)
     WHERE name = $1 AND id = $2 AND state = 'active'`,
    [name, id, startAfter, turn ?? null],
  );
}

function isMultiStatementError(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "42601" && /multiple commands/.test(String((error as Error).message));
}

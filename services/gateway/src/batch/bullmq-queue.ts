import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@winnow/platform";
import { DelayedError, type Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { QueueBackend, QueueSpec, TaskQueue } from "./task-queue.js";

/**
 * Queues in Redis with BullMQ, shared by every gateway on the same Redis. A
 * running task holds a lock its worker renews; a worker that dies stops
 * renewing, and BullMQ's stalled-job check hands the task to another worker.
 */
/** How long closing waits for BullMQ after the running tasks are done or given up. */
const CLOSE_WAIT_MS = 2_000;
/** How often the tasks BullMQ failed for good are looked for (also at once when this process's worker fails one). */
const GIVEN_UP_SWEEP_MS = 5_000;
/** Failed tasks handed over per look. */
const GIVEN_UP_BATCH = 100;
/** BullMQ's lowest priority: turns past it share it, in arrival order, until the queue empties. */
const LAST_TURN = 2_097_151;
/**
 * Gives `ARGV[2]` turns to key `ARGV[1]` and answers the first: after the later of the key's last turn and the
 * turn served (KEYS[1], the queue's turns: the latest turn whose task ran, and each key's last turn given). They
 * start again at 1 whenever the queue is empty (KEYS[2..5]: BullMQ's wait, prioritized, delayed and active sets).
 */
const GIVE_TURNS = `
if redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[4]) + redis.call('LLEN', KEYS[5]) == 0 then
  redis.call('DEL', KEYS[1])
end
local served = tonumber(redis.call('HGET', KEYS[1], 'served') or '0')
local first = math.max(served, tonumber(redis.call('HGET', KEYS[1], 'key:' .. ARGV[1]) or '0')) + 1
redis.call('HSET', KEYS[1], 'key:' .. ARGV[1], first + tonumber(ARGV[2]) - 1)
return first`;
/** Records turn ARGV[1] as served, if it is later than the turn served (KEYS[1], the queue's turns). */
const SERVE_TURN = `
if tonumber(ARGV[1]) > tonumber(redis.call('HGET', KEYS[1], 'served') or '0') then
  redis.call('HSET', KEYS[1], 'served', ARGV[1])
end`;

export function startBullMqQueues(redisUrl: string, keyPrefix: string, logger: Logger): QueueBackend {
  // BullMQ's workers block on Redis: it wants no per-request retry limit.
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  connection.on("error", (error: Error) => logger.warn({ err: error }, "Redis connection for the job queue failed"));
  const own = (duplicate: Redis) => {
    connections.push(duplicate);
    return duplicate;
  };
  const prefix = `${keyPrefix}bull`;
  const controller = new AbortController();
  const queues: Queue[] = [];
  const workers: Worker[] = [];
  const connections = [connection];
  const sweeps: NodeJS.Timeout[] = [];

  return {
    async queue<T extends object>(spec: QueueSpec): Promise<TaskQueue<T>> {
      const queue = new Queue<T>(spec.name, { connection, prefix });
      queues.push(queue);
      const turns = fairTurns(connection, queue, `${keyPrefix}turns:${spec.name}`);
      return {
        depth: () => queue.count(),
        async add(items, key = "") {
          if (items.length === 0) return;
          const first = await turns.give(key, items.length);
          await queue.addBulk(
            items.map((data, i) => ({
              // The job's name is its key, for a later turn when it must wait.
              name: key,
              data,
              opts: {
                priority: Math.min(first + i, LAST_TURN),
                attempts: spec.attempts,
                // From backoffMs to twice as long, doubling (as pg-boss's own backoff).
                backoff: { type: "exponential", delay: 2 * spec.backoffMs, jitter: 0.5 },
                removeOnComplete: true,
                // Kept until handed to work()'s givenUp.
                removeOnFail: false,
              },
            })) as Parameters<Queue<T>["addBulk"]>[0],
          );
        },
        work(handler, givenUp) {
          const worker = new Worker<T>(
            spec.name,
            async (job, token) => {
              const lastAttempt = job.attemptsMade + 1 >= spec.attempts;
              const outcome = await handler({ data: job.data, lastAttempt }, controller.signal).catch(
                async (error: unknown) => {
                  await turns.served(job.priority);
                  throw error;
                },
              );
              if (!outcome) return turns.served(job.priority);
              // Back to the delayed set without spending an attempt, at the end of its key's line, so that other
              // keys' tasks waiting go first; DelayedError tells the worker it moved.
              await job.changePriority({ priority: Math.min(await turns.give(job.name, 1), LAST_TURN) });
              await job.moveToDelayed(Date.now() + outcome.laterMs, token);
              throw new DelayedError();
            },
            {
              connection: own(connection.duplicate()),
              prefix,
              concurrency: spec.concurrency,
              lockDuration: Math.min(spec.leaseMs, 30_000),
              // A lost worker's tasks are looked for as often as a lock can lapse (BullMQ's default is every 30 s,
              // whatever the lock), so they are taken again within two lock periods.
              stalledInterval: Math.min(spec.leaseMs, 30_000),
              maxStalledCount: spec.attempts,
            },
          );
          worker.on("error", (error) => logger.warn({ err: error, queue: spec.name }, "job queue worker failed"));
          workers.push(worker);
          // A task failed for good (attempts used up, or stalled too often: its workers lost) stays in the failed
          // set until handed to givenUp here, by whichever gateway looks first; removed once handed over.
          let sweeping = false;
          const sweep = () => {
            // Not once closing: the tasks this process's shutdown cut short are handed over after it, by any worker.
            if (sweeping || controller.signal.aborted) return;
            sweeping = true;
            handOver(queue, givenUp)
              .catch((error: unknown) =>
                logger.warn({ err: error, queue: spec.name }, "could not hand over given-up tasks"),
              )
              .finally(() => {
                sweeping = false;
              });
          };
          worker.on("failed", (job) => {
            if (job?.finishedOn) sweep();
          });
          sweep();
          const timer = setInterval(sweep, GIVEN_UP_SWEEP_MS);
          timer.unref();
          sweeps.push(timer);
        },
      };
    },
    async close(graceMs) {
      for (const timer of sweeps) clearInterval(timer);
      // Closing a worker stops it taking jobs and waits for its running ones.
      const closed = Promise.all(workers.map((worker) => worker.close()));
      await Promise.race([closed, sleep(graceMs, undefined, { ref: false })]);
      controller.abort();
      // With Redis gone, BullMQ's closes wait for a connection that never comes back: they get a moment, then the
      // connections are dropped.
      const queuesClosed = Promise.all(queues.map((queue) => queue.close()));
      await Promise.race([Promise.all([closed, queuesClosed]), sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
      for (const each of connections) each.disconnect();
    },
  };
}

/**
 * Keys' turns on BullMQ's priorities (the lowest first, in arrival order within one): fair queueing, each key's
 * tasks numbered after the later of its own last and the turn being served, so that a key with thousands of tasks
 * waiting holds one turn per round and a key that comes later starts at the round being served. A task that waits
 * (a later run that spends no attempt) does not count as served.
 */
function fairTurns(redis: Redis, queue: Queue, turnsKey: string) {
  const { wait, prioritized, delayed, active } = queue.keys;
  return {
    async give(key: string, count: number): Promise<number> {
      return Number(await redis.eval(GIVE_TURNS, 5, turnsKey, wait!, prioritized!, delayed!, active!, key, count));
    },
    async served(turn: number): Promise<void> {
      // Tasks queued before keys took turns have none.
      if (turn > 0) await redis.eval(SERVE_TURN, 1, turnsKey, turn);
    },
  };
}

/** Hands the queue's failed tasks (a batch of them; the next look takes more) to `givenUp`, each removed once handed over. */
async function handOver<T>(queue: Queue<T>, givenUp: (data: T) => Promise<void>): Promise<void> {
  const failed: Job<T>[] = await queue.getFailed(0, GIVEN_UP_BATCH - 1);
  for (const job of failed) {
    await givenUp(job.data);
    // Another gateway may have handed it over and removed it first.
    await job.remove().catch(() => {});
  }
}

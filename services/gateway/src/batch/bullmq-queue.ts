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
/** How often the tasks BullMQ failed for good are looked for (also at once when this gateway's worker fails one). */
const GIVEN_UP_SWEEP_MS = 5_000;
/** Failed tasks handed over per look. */
const GIVEN_UP_BATCH = 100;

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
      return {
        async add(items) {
          if (items.length === 0) return;
          await queue.addBulk(
            items.map((data) => ({
              name: spec.name,
              data,
              opts: {
                attempts: spec.attempts,
                backoff: { type: "exponential", delay: spec.backoffMs },
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
              const outcome = await handler({ data: job.data, lastAttempt }, controller.signal);
              if (outcome) {
                // Back to the delayed set without spending an attempt; DelayedError tells the worker it moved.
                await job.moveToDelayed(Date.now() + outcome.laterMs, token);
                throw new DelayedError();
              }
            },
            {
              connection: own(connection.duplicate()),
              prefix,
              concurrency: spec.concurrency,
              lockDuration: Math.min(spec.leaseMs, 30_000),
              maxStalledCount: spec.attempts,
            },
          );
          worker.on("error", (error) => logger.warn({ err: error, queue: spec.name }, "job queue worker failed"));
          workers.push(worker);
          // A task failed for good (attempts used up, or stalled too often: its workers lost) stays in the failed
          // set until handed to givenUp here, by whichever gateway looks first; removed once handed over.
          let sweeping = false;
          const sweep = () => {
            // Not once closing: the tasks this gateway's shutdown cut short are handed over after it, by any gateway.
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

/** Hands the queue's failed tasks (a batch of them; the next look takes more) to `givenUp`, each removed once handed over. */
async function handOver<T>(queue: Queue<T>, givenUp: (data: T) => Promise<void>): Promise<void> {
  const failed: Job<T>[] = await queue.getFailed(0, GIVEN_UP_BATCH - 1);
  for (const job of failed) {
    await givenUp(job.data);
    // Another gateway may have handed it over and removed it first.
    await job.remove().catch(() => {});
  }
}

import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@winnow/platform";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { QueueBackend, QueueSpec, TaskQueue } from "./task-queue.js";

/**
 * Queues in Redis with BullMQ, shared by every gateway on the same Redis. A
 * running task holds a lock its worker renews; a worker that dies stops
 * renewing, and BullMQ's stalled-job check hands the task to another worker.
 */
/** How long closing waits for BullMQ after the running tasks are done or given up. */
const CLOSE_WAIT_MS = 2_000;

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
                removeOnFail: true,
              },
            })) as Parameters<Queue<T>["addBulk"]>[0],
          );
        },
        work(handler) {
          const worker = new Worker<T>(
            spec.name,
            (job) =>
              handler(
                { data: job.data, attempt: job.attemptsMade + 1, lastAttempt: job.attemptsMade + 1 >= spec.attempts },
                controller.signal,
              ),
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
        },
      };
    },
    async close(graceMs) {
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

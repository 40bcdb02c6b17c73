import { type Logger, meter } from "@winnow/platform";
import type { BatchQueues } from "../batch/batch.js";

/**
 * Exports each queue's depth (tasks waiting, across every worker sharing it) as a gauge, read when metrics are
 * collected: what an autoscaler scales the jobs workers on (docs/operations.md).
 */
export function exportQueueDepth(queues: BatchQueues, logger: Logger): void {
  const gauge = meter.createObservableGauge("winnow.jobs.queue.depth", {
    description: "Tasks waiting in a jobs queue (batch-pages, batch-webhooks), retries and tasks put off included",
  });
  gauge.addCallback(async (result) => {
    for (const [name, queue] of [
      ["batch-pages", queues.pages],
      ["batch-webhooks", queues.webhooks],
    ] as const) {
      try {
        result.observe(await queue.depth(), { queue: name });
      } catch (error) {
        logger.warn({ err: error, queue: name }, "could not read the queue's depth");
      }
    }
  });
}

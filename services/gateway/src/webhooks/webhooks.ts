import { type EgressGuard, type Logger, pinnedLookup, WinnowError } from "@winnow/platform";
import { Agent, request } from "undici";
import type { BatchJob, BatchStore, PageResult } from "../batch/batch-store.js";
import type { JobEvents } from "../batch/page-runner.js";
import type { Task, TaskOutcome, TaskQueue } from "../batch/task-queue.js";
import type { DeliverySlots } from "./delivery-slots.js";
import type { WebhookSecretCache } from "./webhook-secret-cache.js";
import { signatureHeaders } from "./webhook-signature.js";

/** One event to deliver, as queued: the body is signed when it is sent, each try with its own timestamp. */
export interface WebhookTask {
  url: string;
  accountId: string;
  body: string;
}

/** What a receiver's answer is read of (it is not used): the rest is dropped with the connection. */
const MAX_ANSWER_BYTES = 4 * 1024;
/** How long a delivery whose receiver or account has no slot free waits, on average, before asking again. */
const SLOT_WAIT_MS = 250;

/** How deliveries share the delivery workers. */
export interface DeliveryLimits {
  /** One attempt's whole time: connecting, the receiver's answer and reading it. */
  timeoutMs: number;
  /** Deliveries in flight at most per receiver and per account (see DeliverySlots). */
  slots: DeliverySlots;
}

/**
 * A job's events as signed POSTs to its webhook, queued so that they
 * survive a restart and are retried with backoff while the receiver fails.
 * Every delivery goes through the egress guard, the one scraping uses: a
 * private address is refused (unless WINNOW_EGRESS_ALLOW lets it through),
 * and the socket connects to exactly the address the guard checked.
 */
export class Webhooks implements JobEvents {
  constructor(
    private readonly queue: TaskQueue<WebhookTask>,
    private readonly store: BatchStore,
    /** Each account's webhook secrets (random, sealed and rotated by auth). */
    private readonly secrets: WebhookSecretCache,
    private readonly guard: EgressGuard,
    private readonly limits: DeliveryLimits,
    private readonly logger: Logger,
  ) {}

  /** The page's result, and the job's progress with it. */
  async page(job: BatchJob, page: PageResult): Promise<void> {
    if (!wants(job, "page")) return;
    const progress = await this.store.progress(job.id);
    await this.send(job, "page", {
      id: `${job.id}:${String(page.index)}`,
      type: "page",
      job_id: job.id,
      page,
      progress,
    });
  }

  async completed(job: BatchJob): Promise<void> {
    const current = (await this.store.job(job.id)) ?? job;
    await this.send(job, "completed", {
      id: `${job.id}:completed`,
      type: "completed",
      job_id: job.id,
      job: await this.store.describe(current),
    });
  }

  /** Refuses a webhook address before a job is accepted: not http(s), credentials, or not public. */
  async check(url: URL): Promise<void> {
    try {
      await this.guard.pinUrl(url);
    } catch (error) {
      if (!(error instanceof WinnowError)) throw error;
      throw new WinnowError(error.type, `webhook.url: ${error.message}`, {
        violations: [{ path: "/webhook/url", description: error.message }],
      });
    }
  }

  /** A delivery whose every attempt failed: said once, by its receiver's host (a webhook's path and query may hold its token). */
  async givenUp(data: WebhookTask): Promise<void> {
    this.logger.warn({ host: new URL(data.url).host, accountId: data.accountId }, "webhook delivery given up");
  }

  /**
   * Delivers one event; throws (for the queue to retry) when the receiver does not answer 2xx within the
   * attempt's deadline. A delivery whose receiver or account already has its deliveries in flight is put off,
   * spending none of its attempts, so that one slow receiver cannot hold every delivery worker.
   */
  async deliver({ data, lastAttempt }: Task<WebhookTask>, signal: AbortSignal): Promise<TaskOutcome> {
    const url = new URL(data.url);
    const release = this.limits.slots.take(url, data.accountId);
    if (!release) return { laterMs: SLOT_WAIT_MS * (0.5 + Math.random()) };
    const started = performance.now();
    // Each attempt is logged by its receiver's host alone, as givenUp says it: a webhook's path may hold its token.
    const fields = () => ({ host: url.host, account_id: data.accountId, ms: Math.round(performance.now() - started) });
    try {
      const status = await this.post(url, data, signal);
      if (status !== undefined)
        this.logger.info({ ...fields(), status }, `webhook delivered to ${url.host} (${status})`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        { ...fields(), err: error, last_attempt: lastAttempt },
        `webhook delivery to ${url.host} failed: ${reason}${lastAttempt ? "" : "; it will be retried"}`,
      );
      throw error;
    } finally {
      release();
    }
  }

  /** Sends one attempt; resolves to the receiver's status, or undefined when the guard refused the address. */
  private async post(url: URL, data: WebhookTask, signal: AbortSignal): Promise<number | undefined> {
    let pin: Awaited<ReturnType<EgressGuard["pinUrl"]>>;
    try {
      pin = await this.guard.pinUrl(url);
    } catch (error) {
      // The address became private since the job was accepted: never sent, and retrying will not change that.
      if (error instanceof WinnowError && error.type === "url-not-allowed") {
        this.logger.warn({ host: url.host, err: error }, "webhook refused by the egress guard");
        return undefined;
      }
      throw error;
    }
    // One deadline for the whole attempt: a receiver that trickles its answer a byte at a time is cut off too.
    const deadline = AbortSignal.timeout(this.limits.timeoutMs);
    const attempt = AbortSignal.any([signal, deadline]);
    // Asked at each attempt (of auth at most once a few seconds), so that a rotation signs the next ones.
    const secrets = await this.secrets.secrets(data.accountId, {
      signal: attempt,
      deadline: new Date(Date.now() + this.limits.timeoutMs),
    });
    const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pin) } });
    try {
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await request(url, {
        method: "POST",
        body: data.body,
        headers: {
          "content-type": "application/json",
          "user-agent": "Winnow-Webhooks/1",
          ...signatureHeaders(secrets, data.body, timestamp),
        },
        dispatcher,
        signal: attempt,
      });
      await response.body.dump({ limit: MAX_ANSWER_BYTES });
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new Error(`the webhook receiver answered ${response.statusCode}`);
      }
      return response.statusCode;
    } catch (error) {
      if (!deadline.aborted) throw error;
      throw new Error(`the webhook receiver did not answer within ${this.limits.timeoutMs} ms`, { cause: error });
    } finally {
      await dispatcher.destroy();
    }
  }

  private async send(job: BatchJob, event: "page" | "completed", payload: object): Promise<void> {
    if (!wants(job, event)) return;
    // In the account's line: accounts take turns at the delivery workers, as at the page workers.
    await this.queue.add(
      [{ url: job.webhook!.url, accountId: job.accountId, body: JSON.stringify(payload) }],
      job.accountId,
    );
  }
}

/** Whether the job's webhook takes this event. */
function wants(job: BatchJob, event: "page" | "completed"): boolean {
  return job.webhook?.events.includes(event) ?? false;
}

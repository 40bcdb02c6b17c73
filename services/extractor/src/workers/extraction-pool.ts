/**
 * Extractions run in a pool of worker threads (piscina), one at a time per
 * thread, so that no page can hold the main thread: a page whose parse or
 * walks cost seconds of CPU (100,000 nested elements cost the HTML parser a
 * minute) holds one worker, and at the request's deadline (or when the
 * caller cancels) that worker is ended and replaced. Other requests go on in
 * the other workers meanwhile, and the main thread keeps answering gRPC,
 * health checks and the workers' calls: the model call and the template
 * store stay here, so the model's concurrency limit and the store's cache
 * are one per process. Workers are shared fairly between accounts
 * (account-slots.ts): no account holds more than its share of them.
 */
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { type CallContext, currentRequestFields, deadlineSignal, WinnowError } from "@winnow/platform";
import { Piscina } from "piscina";
import type { LlmEngine } from "../engines/model/llm.js";
import type { Answered, ExtractionInput } from "../flow/job.js";
import { siteId } from "../templates/signature.js";
import type { TemplateStore } from "../templates/store.js";
import { AccountSlots } from "./account-slots.js";
import {
  type CallResult,
  type ExtractionTask,
  errorOf,
  problemOf,
  STORE_METHODS,
  type StoreCall,
  type WorkerMessage,
  type WorkerSettings,
} from "./messages.js";
import { ReadyThreads } from "./ready-threads.js";

export interface PoolSettings {
  /** Extractions at once (EXTRACT_WORKERS); a worker waiting for the model is held too. */
  workers: number;
  /** Extractions one account runs at once (EXTRACT_WORKERS_PER_ACCOUNT); its others wait their turn. */
  workersPerAccount: number;
  /** Extractions waiting for a worker before new ones are refused as overloaded (EXTRACT_MAX_QUEUE). */
  maxQueue: number;
  worker: WorkerSettings;
}

/**
 * The worker's module: beside this one in the build. Threads run JavaScript, so where the sources run (under vitest)
 * it is the build's.
 */
function workerModule(): URL {
  const here = import.meta.url;
  return here.endsWith(".ts")
    ? new URL(here.replace(/\/src\/workers\/extraction-pool\.ts$/, "/dist/workers/extraction-worker.js"))
    : new URL("./extraction-worker.js", here);
}

export class ExtractionPool {
  private readonly pool: Piscina;
  private readonly slots: AccountSlots;

  constructor(
    settings: PoolSettings,
    private readonly llm: LlmEngine | undefined,
    private readonly store: TemplateStore | undefined,
  ) {
    this.slots = new AccountSlots({
      workers: settings.workers,
      perAccount: settings.workersPerAccount,
      maxQueue: settings.maxQueue,
    });
    const threads = new ReadyThreads();
    this.pool = new Piscina({
      filename: workerModule().href,
      minThreads: Math.min(settings.workers, 2),
      maxThreads: settings.workers,
      // A new thread loads the extractor's modules first (a few hundred ms): threads beyond two stay a while when idle.
      idleTimeout: 60_000,
      concurrentTasksPerWorker: 1,
      maxQueue: settings.maxQueue,
      workerData: settings.worker,
      // Not the process's preloads (the telemetry SDK would start a second metrics exporter in every thread), but its
      // CPU profiling (--cpu-prof, as bench:load's BENCH_PROFILE asks): extractions spend their time in the workers.
      execArgv: process.execArgv.filter((arg) => arg.startsWith("--cpu-prof")),
      // An extraction waiting for a worker takes the first one ready, not one still starting.
      loadBalancer: threads.balancer,
    });
    threads.follow(this.pool);
  }

  /**
   * Runs one extraction in a worker when its account's turn comes; ends that worker when the deadline passes or the
   * caller cancels first. `account` is the request's tenant ("" for internal callers).
   */
  run(input: ExtractionInput, account: string, ctx: CallContext): Promise<Answered> {
    const { port1: port, port2 } = new MessageChannel();
    const deadline = deadlineSignal({ signal: ctx.signal, deadline: ctx.deadline });
    return new Promise<Answered>((resolve, reject) => {
      const receive = (message: WorkerMessage) => {
        switch (message.kind) {
          case "answer":
            return resolve(message.answer);
          case "failure":
            return reject(errorOf(message.problem, message.message));
          case "model":
            return void settle(message.id, this.callModel(message, ctx)).then((result) => port.postMessage(result));
          case "store":
            return void Promise.all(message.calls.map((call) => settle(call.id, this.callStore(call)))).then(
              (results) => port.postMessage(results),
            );
        }
      };
      port.on("message", receive);
      // The request's fields go along, so the worker's log lines name the request too.
      const request = currentRequestFields();
      const siteTemplates = this.siteTemplates(input, deadline.signal);
      // The slot is held until the task ends, learning included: the worker is busy until then.
      this.slots
        .acquire(account, deadline.signal)
        .then(async (release) => {
          const task: ExtractionTask = { input, port: port2, request, siteTemplates: await siteTemplates };
          return this.pool.run(task, { transferList: [port2], signal: deadline.signal }).finally(release);
        })
        .then(
          () => {
            // The task's end may arrive before its port's last messages (two channels): read them first.
            for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port))
              receive(next.message as WorkerMessage);
            // Settled by now when the worker answered.
            reject(new Error("the extraction worker ended without an answer"));
          },
          (error: unknown) => reject(this.failure(error, ctx)),
        )
        .finally(() => {
          deadline.dispose();
          port.close();
        });
    });
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }

  private callModel(message: Extract<WorkerMessage, { kind: "model" }>, ctx: CallContext): Promise<unknown> {
    if (!this.llm) return Promise.reject(new Error("no model is configured"));
    const deadline = message.deadline === undefined ? undefined : new Date(message.deadline);
    return this.llm.extract(message.request, { signal: ctx.signal, deadline });
  }

  /**
   * The templates of the page's site, which the worker's flow asks for first (templates/learner.ts, templateFor), read
   * here beside the task: one round trip between the threads less. Undefined once the deadline passes (the task then
   * fails as it would have), for a page that reads no templates, and when the store fails (the worker asks again and
   * reports it, as without this).
   */
  private siteTemplates(input: ExtractionInput, deadline: AbortSignal): Promise<ExtractionTask["siteTemplates"]> {
    const { store } = this;
    const { templateScope, url } = input;
    if (!store || !templateScope || !URL.canParse(url)) return Promise.resolve(undefined);
    // The site as the worker's page layout names it (templates/signature.ts).
    const site = { tenant: templateScope.tenant, host: new URL(url).hostname.toLowerCase() };
    return new Promise((resolve) => {
      deadline.addEventListener("abort", () => resolve(undefined), { once: true });
      store.templates(site).then(
        (templates) => resolve({ site: siteId(site), templates }),
        () => resolve(undefined),
      );
    });
  }

  private callStore({ method, args }: StoreCall): Promise<unknown> {
    if (!this.store || !STORE_METHODS.includes(method)) return Promise.reject(new Error(`no store method ${method}`));
    return (this.store[method] as (...a: unknown[]) => Promise<unknown>).apply(this.store, args);
  }

  /** Why a task ended without an answer, as the caller should hear it. */
  private failure(error: unknown, ctx: CallContext): Error {
    // A refusal of the account's turn (overloaded) says itself.
    if (error instanceof WinnowError) return error;
    const message = (error as Error).message;
    if ((error as Error).name === "AbortError") {
      return ctx.deadline && Date.now() >= ctx.deadline.getTime()
        ? new WinnowError("deadline-exceeded", "the extraction did not finish before the deadline")
        : new WinnowError("deadline-exceeded", "the caller cancelled the extraction");
    }
    if (message === "Task queue is at limit")
      return new WinnowError("overloaded", "every extraction worker is busy and the queue is full");
    return new Error(`extraction worker failed: ${message}`);
  }
}

/** A call's outcome as the worker is told it; never rejects. */
function settle(id: number, call: Promise<unknown>): Promise<CallResult> {
  return call.then(
    (value) => ({ id, value }),
    (error: unknown) => ({ id, problem: problemOf(error), message: (error as Error).message }),
  );
}

/**
 * An extraction worker (a thread of the pool in extraction-pool.ts): it
 * parses the page and runs the whole extraction flow, so that a page that
 * costs seconds of CPU holds this thread only, and the main thread can end
 * it at the request's deadline. The model call and the template store stay
 * on the main thread, reached over the task's port.
 */
import type { MessagePort } from "node:worker_threads";
import { workerData } from "node:worker_threads";
import { createLogger, withRequestFields } from "@winnow/platform";
import type { CallBounds, ModelReader } from "../engines/model/llm.js";
import type { PromptRequest } from "../engines/model/prompt.js";
import { runExtraction } from "../flow/extract.js";
import { loadPage } from "../page/page.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { TemplateLearner } from "../templates/learner.js";
import { siteId, templateId } from "../templates/signature.js";
import type { LocatorRecord, TemplateStore } from "../templates/store.js";
import {
  type ExtractionTask,
  errorOf,
  type MainMessage,
  problemOf,
  type StoreCall,
  type WorkerMessage,
  type WorkerSettings,
} from "./messages.js";

/** Calls to the main thread over one task's port. */
class MainThread {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  /** Store calls made in this turn, sent together once it ends (messages.ts). */
  private storeCalls: StoreCall[] = [];

  constructor(readonly port: MessagePort) {
    port.on("message", (message: MainMessage) => {
      for (const result of Array.isArray(message) ? message : [message]) {
        const waiting = this.pending.get(result.id);
        this.pending.delete(result.id);
        if ("problem" in result) waiting?.reject(errorOf(result.problem, result.message));
        else waiting?.resolve(result.value);
      }
    });
  }

  model<T>(request: PromptRequest, deadline: number | undefined): Promise<T> {
    return this.call((id) => this.port.postMessage({ kind: "model", id, request, deadline } satisfies WorkerMessage));
  }

  store<T>(method: StoreCall["method"], args: unknown[]): Promise<T> {
    return this.call((id) => {
      if (this.storeCalls.length === 0) queueMicrotask(() => this.sendStoreCalls());
      this.storeCalls.push({ id, method, args });
    });
  }

  private sendStoreCalls(): void {
    const calls = this.storeCalls;
    this.storeCalls = [];
    this.port.postMessage({ kind: "store", calls } satisfies WorkerMessage);
  }

  private call<T>(send: (id: number) => void): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      send(id);
    });
  }
}

/**
 * The main thread's template store, through the port of the task at hand (a worker runs one task at a time). A
 * template's locators are read once per task (answering and then learning both read them) unless the task records.
 */
class RemoteTemplateStore implements TemplateStore {
  private main: MainThread | undefined;
  private siteTemplates: ExtractionTask["siteTemplates"];
  private readonly locatorReads = new Map<string, Promise<LocatorRecord[]>>();

  /** The task whose port the calls go over from now on, with what the pool read for it; undefined once it has ended. */
  serve(main: MainThread | undefined, siteTemplates?: ExtractionTask["siteTemplates"]): void {
    this.main = main;
    this.siteTemplates = siteTemplates;
    this.locatorReads.clear();
  }

  private call<T>(method: StoreCall["method"], args: unknown[]): Promise<T> {
    if (!this.main) return Promise.reject(new Error("the template store is reached only during a task"));
    return this.main.store<T>(method, args);
  }

  templates: TemplateStore["templates"] = (site) =>
    this.siteTemplates?.site === siteId(site)
      ? Promise.resolve(this.siteTemplates.templates)
      : this.call("templates", [site]);
  use: TemplateStore["use"] = (...args) => this.call("use", args);
  locators: TemplateStore["locators"] = (template) => {
    const id = templateId(template);
    let read = this.locatorReads.get(id);
    if (!read) {
      read = this.call<LocatorRecord[]>("locators", [template]);
      this.locatorReads.set(id, read);
      // A failed read is not kept.
      read.catch(() => this.locatorReads.get(id) === read && this.locatorReads.delete(id));
    }
    return read;
  };
  record: TemplateStore["record"] = (template, ...rest) => {
    this.locatorReads.delete(templateId(template));
    return this.call("record", [template, ...rest]);
  };
  // Administration goes through the main thread's store, never through an extraction.
  list = (): never => {
    throw new Error("not available in an extraction worker");
  };
  forget = (): never => {
    throw new Error("not available in an extraction worker");
  };
  async close(): Promise<void> {}
}

const settings = workerData as WorkerSettings;
const logger = createLogger("extractor", settings.logLevel);
const schemas = new SchemaCache(settings.schemaCacheSize);
const store = new RemoteTemplateStore();
// One learner per worker: its memory of recent pages lives as long as the thread.
const templates = settings.templates ? new TemplateLearner(store, logger) : undefined;
const flow = { schemas, prompts: settings.prompts, hybrid: settings.hybrid, templates, logger };

export default function extract(task: ExtractionTask): Promise<void> {
  return withRequestFields(task.request, () => extractPage(task));
}

async function extractPage({ input, port, siteTemplates }: ExtractionTask): Promise<void> {
  const main = new MainThread(port);
  store.serve(main, siteTemplates);
  const send = (message: WorkerMessage) => port.postMessage(message);
  // The main thread ends the task at the deadline; the model's calls are bounded there, by the caller's signal too.
  const bounds: CallBounds = {
    signal: new AbortController().signal,
    deadline: input.deadline === undefined ? undefined : new Date(input.deadline),
  };
  const model: ModelReader = {
    extract: (request, partBounds) => main.model(request, partBounds.deadline?.getTime()),
  };
  try {
    const extraction = await runExtraction(
      {
        schemaJson: input.schemaJson,
        fieldHints: input.fieldHints,
        fieldRules: input.fieldRules,
        schema: schemas.get(input.schemaJson, input.fieldHints, input.fieldRules),
        page: loadPage(input.html, input.url),
        taskDescription: input.taskDescription,
        includeModelInput: input.includeModelInput,
        evidence: input.evidence,
        llm: input.model ? model : undefined,
        bounds,
        templateScope: input.templateScope,
        pageWarnings: input.pageWarnings,
        wantNextPage: input.wantNextPage,
        knownFields: input.knownFields,
      },
      flow,
    );
    const { response, prefilled, templated } = extraction;
    send({ kind: "answer", answer: { response, prefilled, templated: templated.size } });
    // The answer is out; the task ends when the page has taught its template (or the deadline ends the thread).
    await extraction.learning;
  } catch (error) {
    const problem = problemOf(error);
    if (!problem) logger.error({ err: error }, "extraction failed");
    send({ kind: "failure", problem, message: (error as Error).message });
  } finally {
    store.serve(undefined);
    port.close();
  }
}

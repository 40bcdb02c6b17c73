/**
 * An extraction worker (a thread of the pool in extraction-pool.ts): it
 * parses the page and runs the whole extraction flow, so that a page that
 * costs seconds of CPU holds this thread only, and the main thread can end
 * it at the request's deadline. The model call and the template store stay
 * on the main thread, reached over the task's port.
 */
import type { MessagePort } from "node:worker_threads";
import { workerData } from "node:worker_threads";
import { createLogger, type RequestFields, withRequestFields } from "@winnow/platform";
import type { CallBounds, ModelReader } from "../engines/model/llm.js";
import { runExtraction } from "../flow/extract.js";
import type { ExtractionInput } from "../flow/job.js";
import { loadPage } from "../page/page.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { TemplateLearner } from "../templates/learner.js";
import type { TemplateStore } from "../templates/store.js";
import { errorOf, type MainMessage, problemOf, type WorkerMessage, type WorkerSettings } from "./messages.js";

type Call = Extract<WorkerMessage, { id: number }>;
type CallRequest = Call extends infer C ? (C extends Call ? Omit<C, "id"> : never) : never;

/** Calls to the main thread over one task's port. */
class MainThread {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(readonly port: MessagePort) {
    port.on("message", (message: MainMessage) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if ("problem" in message) waiting?.reject(errorOf(message.problem, message.message));
      else waiting?.resolve(message.value);
    });
  }

  call<T>(request: CallRequest): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.port.postMessage({ ...request, id } as WorkerMessage);
    });
  }
}

/** The main thread's template store, through the port of the task at hand (a worker runs one task at a time). */
class RemoteTemplateStore implements TemplateStore {
  main: MainThread | undefined;

  private call<T>(method: "templates" | "use" | "locators" | "record", args: unknown[]): Promise<T> {
    if (!this.main) return Promise.reject(new Error("the template store is reached only during a task"));
    return this.main.call<T>({ kind: "store", method, args });
  }

  templates: TemplateStore["templates"] = (...args) => this.call("templates", args);
  use: TemplateStore["use"] = (...args) => this.call("use", args);
  locators: TemplateStore["locators"] = (...args) => this.call("locators", args);
  record: TemplateStore["record"] = (...args) => this.call("record", args);
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

export default function extract(task: {
  input: ExtractionInput;
  port: MessagePort;
  request: RequestFields;
}): Promise<void> {
  return withRequestFields(task.request, () => extractPage(task));
}

async function extractPage({ input, port }: { input: ExtractionInput; port: MessagePort }): Promise<void> {
  const main = new MainThread(port);
  store.main = main;
  const send = (message: WorkerMessage) => port.postMessage(message);
  // The main thread ends the task at the deadline; the model's calls are bounded there, by the caller's signal too.
  const bounds: CallBounds = {
    signal: new AbortController().signal,
    deadline: input.deadline === undefined ? undefined : new Date(input.deadline),
  };
  const model: ModelReader = {
    extract: (request, partBounds) => main.call({ kind: "model", request, deadline: partBounds.deadline?.getTime() }),
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
    store.main = undefined;
    port.close();
  }
}

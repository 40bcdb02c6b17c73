/**
 * What the extractor's main thread and its extraction workers say to each
 * other. A task carries the request and a port of its own; on that port the
 * worker asks the main thread for what stays there (the model call, the
 * template store) and sends its answer, before it goes on learning from the
 * page. Store calls made together go as one message and are answered with
 * one: each message costs both threads a serialisation and a wake-up, which
 * on a small page's scrape was a large part of the extractor's CPU. Errors
 * cross as problems, since a thread boundary keeps only an Error's message.
 */
import type { MessagePort } from "node:worker_threads";
import { type ProblemSlug, type RequestFields, WinnowError } from "@winnow/platform";
import type { PromptSettings } from "../engines/model/extract.js";
import type { PromptRequest } from "../engines/model/prompt.js";
import type { EngineSettings } from "../flow/engines.js";
import type { Answered, ExtractionInput } from "../flow/job.js";
import type { KnownTemplate } from "../templates/signature.js";
import type { TemplateStore } from "../templates/store.js";

/** Fixed for the worker's life (workerData). */
export interface WorkerSettings {
  prompts: PromptSettings;
  hybrid: EngineSettings["hybrid"];
  /** Whether templates are learned and used (the store itself stays on the main thread). */
  templates: boolean;
  schemaCacheSize: number;
  logLevel: string;
}

/** A task as the pool hands it to a worker. */
export interface ExtractionTask {
  input: ExtractionInput;
  /** The task's own port to the main thread. */
  port: MessagePort;
  /** The request's fields, for the worker's log lines. */
  request: RequestFields;
  /**
   * The templates of the page's site (siteId: tenant and host), read from the store as the task was handed over: the
   * worker's first store call, saved. Undefined when the page reads no templates or the read failed (the worker asks).
   */
  siteTemplates: { site: string; templates: KnownTemplate[] } | undefined;
}

/** The template store's methods a worker may call. */
export const STORE_METHODS = ["templates", "use", "locators", "record"] as const satisfies (keyof TemplateStore)[];
type StoreMethod = (typeof STORE_METHODS)[number];

export interface Problem {
  type: ProblemSlug;
  message: string;
  retryable: boolean;
  retryAfterMs: number;
  targetStatus: number;
}

/** One call of the template store's, by a worker. */
export interface StoreCall {
  id: number;
  method: StoreMethod;
  args: unknown[];
}

/** Worker to main thread. */
export type WorkerMessage =
  | { kind: "model"; id: number; request: PromptRequest; deadline: number | undefined }
  | { kind: "store"; calls: StoreCall[] }
  | { kind: "answer"; answer: Answered }
  | { kind: "failure"; problem: Problem | undefined; message: string };

/** The result of a call. */
export type CallResult = { id: number; value: unknown } | { id: number; problem: Problem | undefined; message: string };

/** Main thread to worker: the result of a model call, or those of one message's store calls. */
export type MainMessage = CallResult | CallResult[];

export function problemOf(error: unknown): Problem | undefined {
  if (!(error instanceof WinnowError)) return undefined;
  const { type, message, retryable, retryAfterMs, targetStatus } = error;
  return { type, message, retryable, retryAfterMs, targetStatus };
}

/** The error a problem (or an unexpected error's message) was. */
export function errorOf(problem: Problem | undefined, message: string): Error {
  if (!problem) return new Error(message);
  const { type, retryable, retryAfterMs, targetStatus } = problem;
  return new WinnowError(type, problem.message, { retryable, retryAfterMs, targetStatus });
}

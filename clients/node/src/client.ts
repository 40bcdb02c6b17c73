import { ConnectionError, errorFromProblem, type Problem, ServerError, TimeoutError, WinnowError } from "./errors.js";
import type { ScrapeWithEvidence } from "./evidence.js";
import type { Schema, ScrapeResult } from "./schema.js";

export interface WinnowOptions {
  /** Your API key; defaults to the WINNOW_API_KEY environment variable. */
  apiKey?: string;
  /** Defaults to WINNOW_BASE_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Longest time one scrape may take, retries included (default 120 000 ms). */
  timeoutMs?: number;
  /** Retries after 429, 503 and network errors (default 2). */
  maxRetries?: number;
  /** First backoff step in ms (default 500); doubled each retry, with full jitter, capped at 8 s. */
  retryBaseDelayMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface ScrapeOptions<E extends boolean = boolean> {
  /** How to load the page: "auto" (default), "static" (no JavaScript) or "browser". */
  render?: "auto" | "static" | "browser";
  /** Upper bound for loading the page, in ms. */
  timeoutMs?: number;
  /** A CSS selector to wait for before the page is read. */
  waitFor?: string;
  /** Answer `{ data, evidence }`: the data, and where each value was read. */
  evidence?: E;
}

export interface ScrapeRequest<S extends Schema, E extends boolean = boolean> {
  url: string;
  schema: S;
  /** Extra instructions for the model (summaries, translation, formats). */
  taskDescription?: string;
  options?: ScrapeOptions<E>;
  /** Cancels the call (and any retry waiting). */
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number;
}

const VERSION = "0.1.0";
const MAX_BACKOFF_MS = 8_000;

/** The Winnow API client. It sends the API key on every call and raises a WinnowError subclass on every failure. */
export class Winnow {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #retryBaseDelayMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: WinnowOptions = {}) {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
    const apiKey = options.apiKey ?? env.WINNOW_API_KEY;
    if (!apiKey) throw new TypeError("Winnow: pass apiKey or set the WINNOW_API_KEY environment variable");
    this.#apiKey = apiKey;
    this.baseUrl = (options.baseUrl ?? env.WINNOW_BASE_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Extracts data in the schema's shape from the page at `url`; with `options.evidence`, `{ data, evidence }`. */
  async scrape<const S extends Schema, const E extends boolean = false>(
    request: ScrapeRequest<S, E>,
  ): Promise<E extends true ? ScrapeWithEvidence<S> : ScrapeResult<S>> {
    const body: Record<string, unknown> = { url: request.url, schema: request.schema };
    if (request.taskDescription !== undefined) body.task_description = request.taskDescription;
    if (request.options) body.options = toWireOptions(request.options);
    return (await this.#post("/scrape", body, request.signal, request.timeoutMs ?? this.#timeoutMs)) as E extends true
      ? ScrapeWithEvidence<S>
      : ScrapeResult<S>;
  }

  async #post(path: string, body: unknown, callerSignal: AbortSignal | undefined, timeoutMs: number): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    const deadline = Date.now() + timeoutMs;
    // The caller's own abort surfaces as its reason; our timeout as a TimeoutError.
    const interrupted = (cause: unknown): unknown => {
      if (callerSignal?.aborted) return callerSignal.reason;
      if (timeout.aborted)
        return new TimeoutError(`no answer within ${timeoutMs} ms`, {
          status: 0,
          type: "timeout",
          retryable: true,
          cause,
        });
      return undefined;
    };
    for (let attempt = 0; ; attempt++) {
      let error: WinnowError;
      let retryAfterMs: number | undefined;
      try {
        const response = await this.#fetch(`${this.baseUrl}${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            "x-api-key": this.#apiKey,
            "user-agent": `winnow-node/${VERSION}`,
          },
          body: JSON.stringify(body),
          signal,
        });
        const text = await response.text();
        if (response.ok) return parseSuccess(text, response);
        retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
        error = errorFromResponse(text, response, retryAfterMs);
      } catch (caught) {
        const stop = interrupted(caught);
        if (stop !== undefined) throw stop;
        if (caught instanceof WinnowError) throw caught;
        error = new ConnectionError(`could not reach ${this.baseUrl}: ${describe(caught)}`, {
          status: 0,
          type: "network-error",
          retryable: true,
          cause: caught,
        });
      }
      // A 503 that says it is not retryable (browser-unavailable) will not change on a retry.
      const retriable =
        error instanceof ConnectionError || (error.retryable && (error.status === 429 || error.status === 503));
      const delay = retryAfterMs ?? this.#backoff(attempt);
      if (!retriable || attempt >= this.#maxRetries || Date.now() + delay >= deadline) throw error;
      await sleep(delay, signal).catch((cause: unknown) => {
        throw interrupted(cause) ?? error;
      });
    }
  }

  /** Full jitter: a random wait up to base·2^attempt, capped. */
  #backoff(attempt: number): number {
    return Math.random() * Math.min(MAX_BACKOFF_MS, this.#retryBaseDelayMs * 2 ** attempt);
  }
}

function toWireOptions(options: ScrapeOptions): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (options.render !== undefined) wire.render = options.render;
  if (options.timeoutMs !== undefined) wire.timeout_ms = options.timeoutMs;
  if (options.waitFor !== undefined) wire.wait_for = options.waitFor;
  if (options.evidence !== undefined) wire.evidence = options.evidence;
  return wire;
}

function parseSuccess(text: string, response: Response): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ServerError("the API answered 200 with a body that is not JSON", {
      status: response.status,
      type: "invalid-response",
      retryable: false,
      requestId: response.headers.get("x-request-id") ?? undefined,
      cause,
    });
  }
}

function errorFromResponse(text: string, response: Response, retryAfterMs: number | undefined): WinnowError {
  let problem: Problem;
  try {
    problem = JSON.parse(text) as Problem;
    if (typeof problem !== "object" || problem === null) throw new Error("not an object");
  } catch {
    // Not a problem document (a proxy in between, say): keep what there is.
    problem = {
      type: `http-${response.status}`,
      title: `HTTP ${response.status}`,
      status: response.status,
      detail: text.slice(0, 500),
    };
  }
  const retryAfter = retryAfterMs === undefined ? undefined : retryAfterMs / 1000;
  return errorFromProblem(problem, response.status, response.headers.get("x-request-id") ?? undefined, retryAfter);
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

import { parseDictionary } from "structured-headers";
import { connectionOf } from "./connection.js";
import { ConnectionError, errorFromProblem, type Problem, ServerError, TimeoutError, WinnowError } from "./errors.js";
import { refuseUnknownKeys } from "./known-keys.js";
import type { Account, Engine, PagesRead, ScrapeResponse, ScrapeWithEvidence } from "./response.js";
import type { AnySchema } from "./schema.js";
import { readStatusHeaders } from "./status-headers.js";

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
  /** Upper bound for loading the page, in ms (1 to 120 000). */
  timeoutMs?: number;
  /** A CSS selector to wait for before the page is read; implies the browser. */
  waitFor?: string;
  /** Add `evidence`: where each value was read, and every field's status and the warnings in full. */
  evidence?: E;
  /**
   * With `evidence`: add `screenshot`, a JPEG (a data: URL) of the page's top with the elements the evidence names
   * outlined; a second page load, in the browser. Refused without `evidence`.
   */
  screenshot?: E extends true ? boolean : false;
  /**
   * What the answer holds: `"json"` (the schema's answer, always) and, with `evidence`, `"markdown"`: `markdown`, the
   * page's main content as markdown. Refused without `evidence`, so that `data` alone keeps the schema's shape.
   */
  formats?: E extends true ? ("json" | "markdown")[] : "json"[];
  /**
   * Listing pages to read, the first included (default 1), following each page's own next link on the same site; the
   * schema needs a list of records. At most the server's MAX_LISTING_PAGES.
   */
  pages?: number;
  /** Also read each record's own page (its `url`, `link` or `href` field) for the fields the listing left null. */
  details?: boolean;
}

export interface ScrapeRequest<S extends AnySchema, E extends boolean = boolean> {
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

const REQUEST_KEYS = ["url", "schema", "taskDescription", "options", "signal", "timeoutMs"] as const;
const OPTION_KEYS = [
  "render",
  "timeoutMs",
  "waitFor",
  "evidence",
  "screenshot",
  "formats",
  "pages",
  "details",
] as const;

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
    const { apiKey, baseUrl } = connectionOf(options, "Winnow");
    this.#apiKey = apiKey;
    this.baseUrl = baseUrl;
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#maxRetries = options.maxRetries ?? 2;
    this.#retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * Extracts data in the schema's shape from the page at `url`: `{ data, status, warnings, ... }`, with `evidence` (and
   * `screenshot`) when `options.evidence` asks.
   */
  async scrape<const S extends AnySchema, const E extends boolean = false>(
    request: ScrapeRequest<S, E>,
  ): Promise<E extends true ? ScrapeWithEvidence<S> : ScrapeResponse<S>> {
    refuseUnknownKeys(request, REQUEST_KEYS, "scrape");
    const body: Record<string, unknown> = { url: request.url, schema: request.schema };
    if (request.taskDescription !== undefined) body.task_description = request.taskDescription;
    if (request.options) body.options = toWireOptions(request.options);
    const { answer, headers } = await this.#call(
      "POST",
      "/scrape",
      body,
      request.signal,
      request.timeoutMs ?? this.#timeoutMs,
    );
    const meta = responseMeta(headers);
    // The evidence envelope states every status and warning in full; a plain answer, its headers.
    const response = request.options?.evidence
      ? { ...(answer as object), omitted: 0, ...meta }
      : { data: answer, ...readHeaders(headers, answer), ...meta };
    return response as E extends true ? ScrapeWithEvidence<S> : ScrapeResponse<S>;
  }

  /** The key's account and limits: a cheap way to check a key (it counts against the key's requests per minute). */
  async account(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Account> {
    const { answer } = await this.#call(
      "GET",
      "/account",
      undefined,
      options.signal,
      options.timeoutMs ?? this.#timeoutMs,
    );
    const { account_id, key_id, limits, webhook_secret, webhook_secret_previous_expires_at } = answer as {
      account_id: string;
      key_id: string;
      limits: { plan: string; requests_per_minute: number; max_concurrent_scrapes: number };
      webhook_secret: string;
      webhook_secret_previous_expires_at?: string;
    };
    return {
      accountId: account_id,
      keyId: key_id,
      limits: {
        plan: limits.plan,
        requestsPerMinute: limits.requests_per_minute,
        maxConcurrentScrapes: limits.max_concurrent_scrapes,
      },
      webhookSecret: webhook_secret,
      ...(webhook_secret_previous_expires_at && { webhookSecretPreviousExpiresAt: webhook_secret_previous_expires_at }),
    };
  }

  async #call(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    callerSignal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<{ answer: unknown; headers: Headers }> {
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
          method,
          headers: {
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            accept: "application/json",
            "x-api-key": this.#apiKey,
            "user-agent": `winnow-node/${VERSION}`,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
        const text = await response.text();
        if (response.ok) return { answer: parseSuccess(text, response), headers: response.headers };
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
  refuseUnknownKeys(options, OPTION_KEYS, "scrape options");
  const wire: Record<string, unknown> = {};
  if (options.render !== undefined) wire.render = options.render;
  if (options.timeoutMs !== undefined) wire.timeout_ms = options.timeoutMs;
  if (options.waitFor !== undefined) wire.wait_for = options.waitFor;
  if (options.evidence !== undefined) wire.evidence = options.evidence;
  if (options.screenshot !== undefined) wire.screenshot = options.screenshot;
  if (options.formats !== undefined) wire.formats = options.formats;
  if (options.pages !== undefined) wire.pages = options.pages;
  if (options.details !== undefined) wire.details = options.details;
  return wire;
}

function parseSuccess(text: string, response: Response): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw invalidResponse("a body that is not JSON", response.headers, cause);
  }
}

/** `answer` has exactly the schema's top-level fields (a JSON Schema's properties, not its keywords). */
function readHeaders(headers: Headers, answer: unknown): ReturnType<typeof readStatusHeaders> {
  try {
    return readStatusHeaders(headers, typeof answer === "object" && answer !== null ? Object.keys(answer) : []);
  } catch (cause) {
    throw invalidResponse(`field status headers that are not RFC 8941 lists: ${describe(cause)}`, headers, cause);
  }
}

function invalidResponse(what: string, headers: Headers, cause: unknown): ServerError {
  return new ServerError(`the API answered 200 with ${what}`, {
    status: 200,
    type: "invalid-response",
    retryable: false,
    requestId: headers.get("x-request-id") ?? undefined,
    cause,
  });
}

/**
 * What the response's headers say about the request: its id, the engine, the render path, the model's tokens, and
 * for a whole listing the pages read.
 */
function responseMeta(
  headers: Headers,
): Pick<ScrapeResponse<AnySchema>, "requestId" | "engine" | "renderPath" | "tokens" | "pages"> {
  const tokensIn = headers.get("x-winnow-tokens-in");
  const tokensOut = headers.get("x-winnow-tokens-out");
  const pages = headers.get("winnow-pages");
  return {
    ...(pages === null ? {} : { pages: pagesRead(pages, headers) }),
    requestId: headers.get("x-request-id") ?? undefined,
    engine: (headers.get("x-winnow-engine") ?? undefined) as Engine | undefined,
    renderPath: (headers.get("x-winnow-render-path") ?? undefined) as "static" | "browser" | undefined,
    ...(tokensIn !== null && tokensOut !== null
      ? { tokens: { input: Number(tokensIn), output: Number(tokensOut) } }
      : {}),
  };
}

/** Winnow-Pages (an RFC 8941 dictionary: `listing=12, details=136, failed=1, model=3`) as numbers. */
function pagesRead(header: string, headers: Headers): PagesRead {
  let members: Map<string, unknown>;
  try {
    members = parseDictionary(header) as Map<string, unknown>;
  } catch (cause) {
    throw invalidResponse(
      `a Winnow-Pages header that is not an RFC 8941 dictionary: ${describe(cause)}`,
      headers,
      cause,
    );
  }
  const count = (name: string) => {
    const member = members.get(name);
    return Array.isArray(member) && typeof member[0] === "number" ? member[0] : 0;
  };
  return { listing: count("listing"), details: count("details"), failed: count("failed"), model: count("model") };
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

import { status as GrpcStatus } from "@grpc/grpc-js";

/**
 * The catalogue of failure types shared by every service. The slug travels in
 * gRPC errors (ErrorInfo.type) and becomes the problem `type` URI at the
 * gateway, so a type means the same thing on every hop.
 */
export interface ProblemType {
  /** HTTP status at the gateway. */
  status: number;
  title: string;
  /** gRPC status code between services. */
  grpc: GrpcStatus;
  retryable: boolean;
  /** When it happens, for the API reference (/docs, docs/api.md) and the OpenAPI document (all generated from here). */
  when: string;
}

const {
  INVALID_ARGUMENT,
  UNAUTHENTICATED,
  NOT_FOUND,
  PERMISSION_DENIED,
  ALREADY_EXISTS,
  UNAVAILABLE,
  FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED,
  DEADLINE_EXCEEDED,
  INTERNAL,
  UNIMPLEMENTED,
} = GrpcStatus;

export const PROBLEM_TYPES = {
  "invalid-request": {
    status: 400,
    title: "Invalid request",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: "The body is not JSON, misses `url` or `schema`, has unknown or mistyped fields, or `url` is not an absolute URL; `errors` lists each problem with its path.",
  },
  "invalid-schema": {
    status: 400,
    title: "Invalid schema",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: "The schema breaks the schema language or its limits; `errors` names the path of each bad node.",
  },
  unauthorized: {
    status: 401,
    title: "Missing or invalid API key",
    grpc: UNAUTHENTICATED,
    retryable: false,
    when: "No API key (in `x-api-key` or as `Authorization: Bearer`), or one that is malformed, unknown, or was replaced by a refresh.",
  },
  "key-revoked": {
    status: 401,
    title: "The job's key was revoked",
    grpc: UNAUTHENTICATED,
    retryable: false,
    when: "A batch page not yet run when the key that submitted its job was refreshed or revoked: a job runs under that key only, so its remaining pages are not scraped and the job ends.",
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    grpc: PERMISSION_DENIED,
    retryable: false,
    when: "A dashboard form came from another site, or does not say where from (its `Origin`, else `Referer`, is missing or foreign), or its CSRF token is not its session's.",
  },
  "not-found": {
    status: 404,
    title: "Not found",
    grpc: NOT_FOUND,
    retryable: false,
    when: "No such route, or no such batch job for this key's account (another account's, or one deleted after BATCH_RESULT_TTL_HOURS).",
  },
  "method-not-allowed": {
    status: 405,
    title: "Method not allowed",
    grpc: UNIMPLEMENTED,
    retryable: false,
    when: "The route exists but not for this method (`Allow` says which).",
  },
  "request-timeout": {
    status: 408,
    title: "Request timeout",
    grpc: DEADLINE_EXCEEDED,
    retryable: true,
    when: "The request's headers or body did not arrive in time (answered by the HTTP server before any route).",
  },
  "already-exists": {
    status: 409,
    title: "Already exists",
    grpc: ALREADY_EXISTS,
    retryable: false,
    when: "An account with this email exists already.",
  },
  "payload-too-large": {
    status: 413,
    title: "Request body too large",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: "The body is larger than the gateway accepts (`MAX_BODY_BYTES`).",
  },
  "unsupported-media-type": {
    status: 415,
    title: "Unsupported content type",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: "The body is not sent as `application/json` (UTF-8).",
  },
  "evidence-unavailable": {
    status: 422,
    title: "Evidence cannot be given as asked",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: 'The request asks for evidence in a way that cannot be honoured: `options.screenshot`, or `options.formats` with `"markdown"`, without `options.evidence` (only the evidence envelope has room for the image or the markdown; the plain answer keeps exactly the schema\'s shape).',
  },
  "unsupported-json-schema": {
    status: 422,
    title: "JSON Schema keyword not supported",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: "`schema` is a JSON Schema using a keyword that does not map to the schema language (`oneOf`/`anyOf` other than nullable, `allOf`, `patternProperties`, a schema in `additionalProperties`, tuples, value constraints other than `enum` and `const`), or a `$ref` that is remote, names nothing or refers to a schema that contains it; `errors` names each keyword by its JSON pointer.",
  },
  "rate-limited": {
    status: 429,
    title: "Rate limit exceeded",
    grpc: RESOURCE_EXHAUSTED,
    retryable: true,
    when: "Too many requests per minute, or too many scrapes in flight, for this key, or too many batch jobs running for this key (`BATCH_MAX_LIVE_JOBS`), or too many invalid keys from one address; `Retry-After` and `RateLimit-*` say when to try again.",
  },
  "headers-too-large": {
    status: 431,
    title: "Request headers too large",
    grpc: INVALID_ARGUMENT,
    retryable: false,
    when: "The request's headers exceed the HTTP server's limit (Node.js `--max-http-header-size`, 16 KiB by default).",
  },
  "url-not-allowed": {
    status: 422,
    title: "URL not allowed",
    grpc: PERMISSION_DENIED,
    retryable: false,
    when: "A scheme other than http(s), credentials in the URL, or a host (or a redirect hop) that is or resolves to a private, loopback, link-local, metadata or reserved address; for those, `detail` says how the operator allows them (`WINNOW_EGRESS_ALLOW` on the renderer).",
  },
  "target-unreachable": {
    status: 502,
    title: "Target site unreachable",
    grpc: UNAVAILABLE,
    retryable: true,
    when: "The site's name does not resolve, the connection is refused or reset, it redirects too often, or its scripts keep navigating or navigate to an address that does not load.",
  },
  "target-http-error": {
    status: 502,
    title: "Target site answered with an error",
    grpc: FAILED_PRECONDITION,
    retryable: false,
    when: "The site answered with an HTTP error; its status is in `target_status`.",
  },
  "unsupported-content": {
    status: 502,
    title: "Target content is not a web page",
    grpc: FAILED_PRECONDITION,
    retryable: false,
    when: "The URL serves something other than a web page (a PDF, an image, a download).",
  },
  "page-too-large": {
    status: 502,
    title: "Target page too large",
    grpc: FAILED_PRECONDITION,
    retryable: false,
    when: "The page exceeds the renderer's or the extractor's size limit, or takes so much memory that it crashes the browser tab.",
  },
  "model-failure": {
    status: 502,
    title: "The model did not produce a usable answer",
    grpc: FAILED_PRECONDITION,
    retryable: true,
    when: "The model answered, but not with JSON Winnow could use (refused, cut off, malformed).",
  },
  internal: {
    status: 500,
    title: "Internal error",
    grpc: INTERNAL,
    retryable: true,
    when: "A bug on our side; never caused by a request or a page. Please report the `request_id`.",
  },
  "page-abandoned": {
    // Ours, not the caller's nor the site's: our gateways went away under the page; a new submission may succeed.
    status: 503,
    title: "Every attempt at this page was cut short",
    grpc: UNAVAILABLE,
    retryable: true,
    when: "A batch page whose every attempt (`BATCH_PAGE_ATTEMPTS`) was cut short before it could finish (jobs workers shut down or killed mid-page), so the job queue gave it up; submit it again.",
  },
  "model-unavailable": {
    status: 503,
    title: "The model endpoint is unavailable",
    grpc: UNAVAILABLE,
    retryable: true,
    when: "The model endpoint is down, rate-limited or failing after retries.",
  },
  overloaded: {
    status: 503,
    title: "Service overloaded",
    grpc: RESOURCE_EXHAUSTED,
    retryable: true,
    when: "Winnow is at capacity (all browser pages busy and the queue full); retry after `Retry-After` seconds.",
  },
  "browser-unavailable": {
    status: 503,
    title: "No browser to render this page",
    grpc: FAILED_PRECONDITION,
    retryable: false,
    when: 'The page needs JavaScript (or `render: "browser"`, `wait_for`) and this Winnow runs without a Chromium; `detail` says how to install one. Pages that need no browser still work.',
  },
  "backend-unavailable": {
    status: 503,
    title: "A Winnow backend is unavailable",
    grpc: UNAVAILABLE,
    retryable: true,
    when: "A Winnow service (auth, renderer, extractor, a database) is down; never reported as a 401.",
  },
  "shutting-down": {
    status: 503,
    title: "This gateway is shutting down",
    grpc: UNAVAILABLE,
    retryable: true,
    when: "The gateway is draining before a restart; another replica (or this one, shortly) will answer.",
  },
  "target-timeout": {
    status: 504,
    title: "Target site timed out",
    grpc: DEADLINE_EXCEEDED,
    retryable: true,
    when: "The page's HTML did not arrive in time (a page whose HTML arrived is answered from it, marked `render-incomplete`).",
  },
  "deadline-exceeded": {
    status: 504,
    title: "Request deadline exceeded",
    grpc: DEADLINE_EXCEEDED,
    retryable: true,
    when: "The whole request ran out of time (`REQUEST_TIMEOUT_MS`).",
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export function isProblemSlug(value: string): value is ProblemSlug {
  return Object.hasOwn(PROBLEM_TYPES, value);
}

/** The problem `type` URI for a slug; documentation lives under this path at the gateway. */
export function problemTypeUri(slug: ProblemSlug): string {
  return `https://winnow.dev/problems/${slug}`;
}

export interface Violation {
  path: string;
  description: string;
}

export interface WinnowErrorOptions {
  retryable?: boolean;
  retryAfterMs?: number;
  targetStatus?: number;
  violations?: Violation[];
  cause?: unknown;
}

/**
 * An expected failure with a problem type. Services throw it; the gRPC
 * helpers carry it across hops and the gateway renders it as problem+json.
 */
export class WinnowError extends Error {
  override name = "WinnowError";
  readonly retryable: boolean;
  readonly retryAfterMs: number;
  readonly targetStatus: number;
  readonly violations: Violation[];

  constructor(
    readonly type: ProblemSlug,
    message: string,
    options: WinnowErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? PROBLEM_TYPES[type].retryable;
    this.retryAfterMs = options.retryAfterMs ?? 0;
    this.targetStatus = options.targetStatus ?? 0;
    this.violations = options.violations ?? [];
  }
}

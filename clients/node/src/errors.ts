/** An RFC 9457 problem document as the Winnow API sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  request_id?: string;
  retryable?: boolean;
  /** What is wrong and where, for invalid requests. */
  errors?: { path: string; description: string }[];
  /** The target site's HTTP status, for target-http-error. */
  target_status?: number;
  [extension: string]: unknown;
}

const TYPE_PREFIX = "https://winnow.dev/problems/";

/** Every failure the client raises. `problem` is set when the API answered with a problem document. */
export class WinnowError extends Error {
  override name = "WinnowError";
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  /** The problem type slug, e.g. "invalid-schema"; "network-error" or "timeout" for client-side failures. */
  readonly type: string;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  readonly problem: Problem | undefined;

  constructor(
    message: string,
    init: { status: number; type: string; retryable: boolean; requestId?: string; problem?: Problem; cause?: unknown },
  ) {
    super(message, { cause: init.cause });
    this.status = init.status;
    this.type = init.type;
    this.retryable = init.retryable;
    this.requestId = init.requestId;
    this.problem = init.problem;
  }
}

/** 401: the API key is missing, malformed, unknown or was replaced by a refresh. */
export class AuthenticationError extends WinnowError {
  override name = "AuthenticationError";
}

/** 429: too many requests or scrapes in flight for this key. */
export class RateLimitError extends WinnowError {
  override name = "RateLimitError";
  /** Seconds to wait before retrying, from the Retry-After header. */
  readonly retryAfter: number | undefined;
  constructor(message: string, init: ConstructorParameters<typeof WinnowError>[1] & { retryAfter?: number }) {
    super(message, init);
    this.retryAfter = init.retryAfter;
  }
}

/** 4xx: the request itself is wrong (body, schema, URL, size, content type). `details` says what and where. */
export class InvalidRequestError extends WinnowError {
  override name = "InvalidRequestError";
  get details(): { path: string; description: string }[] {
    return this.problem?.errors ?? [];
  }
}

/** 502: the target site failed (unreachable, HTTP error, not a web page, too large). */
export class TargetError extends WinnowError {
  override name = "TargetError";
  /** The site's own HTTP status, when it answered with an error. */
  get targetStatus(): number | undefined {
    return this.problem?.target_status;
  }
}

/** 502/503: the model failed or is unavailable. */
export class ModelError extends WinnowError {
  override name = "ModelError";
}

/** 504, or the client's own timeout: the page or the whole request took too long. */
export class TimeoutError extends WinnowError {
  override name = "TimeoutError";
}

/** 5xx: Winnow itself is overloaded or failing. */
export class ServerError extends WinnowError {
  override name = "ServerError";
}

/** No response at all: connection refused, reset, DNS failure. */
export class ConnectionError extends WinnowError {
  override name = "ConnectionError";
}

/** The error class for a problem document: by type where known, else by status. */
export function errorFromProblem(
  problem: Problem,
  status: number,
  requestId: string | undefined,
  retryAfter: number | undefined,
): WinnowError {
  const type = problem.type?.startsWith(TYPE_PREFIX)
    ? problem.type.slice(TYPE_PREFIX.length)
    : (problem.type ?? `http-${status}`);
  const init = {
    status,
    type,
    retryable: problem.retryable ?? (status === 429 || status === 503),
    requestId: problem.request_id ?? requestId,
    problem,
  };
  const message = `${problem.title ?? `HTTP ${status}`}${problem.detail ? `: ${problem.detail}` : ""}`;
  if (status === 401) return new AuthenticationError(message, init);
  if (status === 429) return new RateLimitError(message, { ...init, retryAfter });
  if (type.startsWith("model-")) return new ModelError(message, init);
  if (status === 504) return new TimeoutError(message, init);
  if (type.startsWith("target-") || type === "page-too-large" || type === "unsupported-content")
    return new TargetError(message, init);
  if (status >= 400 && status < 500) return new InvalidRequestError(message, init);
  return new ServerError(message, init);
}

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
}

export const PROBLEM_TYPES = {
  "invalid-request": { status: 400, title: "Invalid request", grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  "invalid-schema": { status: 400, title: "Invalid schema", grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  "unauthorized": { status: 401, title: "Missing or invalid API key", grpc: GrpcStatus.UNAUTHENTICATED, retryable: false },
  "forbidden": { status: 403, title: "Forbidden", grpc: GrpcStatus.PERMISSION_DENIED, retryable: false },
  "not-found": { status: 404, title: "Not found", grpc: GrpcStatus.NOT_FOUND, retryable: false },
  "payload-too-large": { status: 413, title: "Request body too large", grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  "unsupported-media-type": { status: 415, title: "Unsupported content type", grpc: GrpcStatus.INVALID_ARGUMENT, retryable: false },
  "url-not-allowed": { status: 422, title: "URL not allowed", grpc: GrpcStatus.PERMISSION_DENIED, retryable: false },
  "rate-limited": { status: 429, title: "Rate limit exceeded", grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  "already-exists": { status: 409, title: "Already exists", grpc: GrpcStatus.ALREADY_EXISTS, retryable: false },
  "target-unreachable": { status: 502, title: "Target site unreachable", grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  "target-http-error": { status: 502, title: "Target site answered with an error", grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  "unsupported-content": { status: 502, title: "Target content is not a web page", grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  "page-too-large": { status: 502, title: "Target page too large", grpc: GrpcStatus.FAILED_PRECONDITION, retryable: false },
  "model-failure": { status: 502, title: "The model did not produce a usable answer", grpc: GrpcStatus.FAILED_PRECONDITION, retryable: true },
  "model-unavailable": { status: 503, title: "The model endpoint is unavailable", grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  "overloaded": { status: 503, title: "Service overloaded", grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  "backend-unavailable": { status: 503, title: "A Winnow backend is unavailable", grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  "target-timeout": { status: 504, title: "Target site timed out", grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
  "deadline-exceeded": { status: 504, title: "Request deadline exceeded", grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
  "internal": { status: 500, title: "Internal error", grpc: GrpcStatus.INTERNAL, retryable: true },
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

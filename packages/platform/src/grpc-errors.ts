import { status as GrpcStatus, Metadata, type ServiceError, type StatusObject } from "@grpc/grpc-js";
import { ErrorInfo } from "./gen/winnow/common/v1/error.js";
import { isProblemSlug, PROBLEM_TYPES, WinnowError } from "./problems.js";

/** Binary trailer carrying winnow.common.v1.ErrorInfo on failed calls. */
export const ERROR_INFO_TRAILER = "winnow-error-bin";

/** Turns any thrown value into a gRPC status with ErrorInfo attached. */
export function toGrpcStatus(error: unknown): Partial<StatusObject> {
  const err = error instanceof WinnowError ? error : new WinnowError("internal", "internal error", { cause: error });
  const metadata = new Metadata();
  const info = ErrorInfo.encode({
    type: err.type,
    retryable: err.retryable,
    retryAfterMs: err.retryAfterMs,
    targetStatus: err.targetStatus,
    violations: err.violations,
  }).finish();
  metadata.set(ERROR_INFO_TRAILER, Buffer.from(info));
  return { code: PROBLEM_TYPES[err.type].grpc, details: err.message, metadata };
}

/**
 * Turns a failed client call back into a WinnowError. Without ErrorInfo (the
 * peer is down, the deadline passed, the call was cancelled) the gRPC code
 * decides: a backend that cannot be reached is "backend-unavailable", never
 * something the caller did wrong.
 */
export function fromGrpcError(error: ServiceError): WinnowError {
  const raw = error.metadata?.get(ERROR_INFO_TRAILER)[0];
  if (raw instanceof Buffer) {
    try {
      const info = ErrorInfo.decode(raw);
      if (isProblemSlug(info.type)) {
        return new WinnowError(info.type, error.details || error.message, {
          retryable: info.retryable,
          retryAfterMs: info.retryAfterMs,
          targetStatus: info.targetStatus,
          violations: info.violations,
          cause: error,
        });
      }
    } catch {
      // A malformed trailer is treated like a missing one.
    }
  }
  switch (error.code) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new WinnowError("deadline-exceeded", "the request deadline passed", { cause: error });
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return new WinnowError("overloaded", error.details || "backend overloaded", { cause: error });
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.CANCELLED:
      return new WinnowError("backend-unavailable", "a backend service is unavailable", { cause: error });
    // The backend refused this service's own caller token (a deployment mistake), never the end user's key.
    case GrpcStatus.UNAUTHENTICATED:
    case GrpcStatus.PERMISSION_DENIED:
      return new WinnowError("internal", `a backend service refused the call: ${error.details}`, { cause: error });
    default:
      return new WinnowError("internal", "a backend service failed", { cause: error });
  }
}

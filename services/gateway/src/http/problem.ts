import { PROBLEM_TYPES, problemTypeUri, type WinnowError } from "@winnow/platform";
import type { Response } from "express";
import { countProblem } from "./gateway-metrics.js";

/**
 * Writes an RFC 9457 problem document. Every failure the gateway answers goes
 * through here, so the shape is the same for all of them.
 */
export function sendProblem(res: Response, error: WinnowError): void {
  const kind = PROBLEM_TYPES[error.type];
  countProblem(error.type);
  const body: Record<string, unknown> = {
    type: problemTypeUri(error.type),
    title: kind.title,
    status: kind.status,
    detail: error.type === "internal" ? "An unexpected error occurred; it has been logged." : error.message,
    request_id: res.locals.requestId,
    retryable: error.retryable,
  };
  if (error.targetStatus) body.target_status = error.targetStatus;
  if (error.violations.length > 0) body.errors = error.violations;
  if (error.retryable && (kind.status >= 500 || error.type === "rate-limited")) {
    res.setHeader("Retry-After", String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
  }
  res.status(kind.status).type("application/problem+json").send(JSON.stringify(body));
}

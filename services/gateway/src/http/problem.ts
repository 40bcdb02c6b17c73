import { PROBLEM_TYPES, problemTypeUri, type WinnowError } from "@winnow/platform";
import type { Response } from "express";
import { noteProblem } from "./access-log.js";
import { countProblem } from "./gateway-metrics.js";

/** The RFC 9457 problem document's fields for `error` (a failed batch page states its failure with them too). */
export function problemDocument(error: WinnowError, requestId?: string): Record<string, unknown> {
  const kind = PROBLEM_TYPES[error.type];
  countProblem(error.type);
  const body: Record<string, unknown> = {
    type: problemTypeUri(error.type),
    title: kind.title,
    status: kind.status,
    detail: error.type === "internal" ? "An unexpected error occurred; it has been logged." : error.message,
    ...(requestId ? { request_id: requestId } : {}),
    retryable: error.retryable,
  };
  if (error.targetStatus) body.target_status = error.targetStatus;
  if (error.violations.length > 0) body.errors = error.violations;
  return body;
}

/** An RFC 9457 problem document for `error`, as every failure the gateway answers has it. */
export function problemBody(error: WinnowError, requestId: string): string {
  return JSON.stringify(problemDocument(error, requestId));
}

/** Writes the problem document for `error`. Every failure an Express route answers goes through here. */
export function sendProblem(res: Response, error: WinnowError): void {
  noteProblem(res, error);
  res.status(retryAfter(res, error)).type("application/problem+json").send(problemBody(error, res.locals.requestId));
}

/** Says when to try again where that is worth it (an outage, a rate limit); returns the problem's HTTP status. */
export function retryAfter(res: Response, error: WinnowError): number {
  const { status } = PROBLEM_TYPES[error.type];
  if (error.retryable && (status >= 500 || error.type === "rate-limited")) {
    res.setHeader("Retry-After", String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
  }
  return status;
}

import { randomUUID } from "node:crypto";
import { type CallOptions, requestMetadata } from "@winnow/platform";
import type { PlanLimits } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { RequestHandler, Response } from "express";

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (a caller's well-formed x-request-id is kept),
 * an overall deadline, and an AbortSignal that fires when the caller goes
 * away, so backends stop working for nobody.
 */
export function requestContext(timeoutMs: number): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get("x-request-id");
    const requestId = incoming && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader("x-request-id", requestId);
    res.locals.deadline = new Date(Date.now() + timeoutMs);
    const controller = new AbortController();
    res.locals.signal = controller.signal;
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    next();
  };
}

/**
 * A backend call on behalf of this request: its deadline, its cancellation, and its request id, target host and key
 * id in the metadata, so the backend's log lines name them too.
 */
export function hop(res: Response): CallOptions {
  const { requestId, targetHost, keyId } = res.locals;
  return {
    deadline: res.locals.deadline,
    signal: res.locals.signal,
    metadata: requestMetadata({ request_id: requestId, target_host: targetHost, key_id: keyId }),
  };
}

declare global {
  namespace Express {
    interface Locals {
      requestId: string;
      deadline: Date;
      signal: AbortSignal;
      accountId?: string;
      keyId?: string;
      /** The host of the page a scrape asked for. */
      targetHost?: string;
      /** The key's plan limits, from ValidateKey. */
      limits?: PlanLimits;
      timings: Record<string, number>;
      /** Whether the key check was answered from the gateway's cache (Server-Timing says so). */
      keyFromCache?: boolean;
    }
  }
}

import type { RequestHandler } from "express";
import { callUnary, WinnowError } from "@winnow/platform";
import type { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";

/**
 * Requires a valid `x-api-key`. A key auth rejects is a 401; auth being
 * unreachable is a 503 from callUnary, never a 401, so an outage does not
 * look like a revoked key. Nothing is cached: a rotated key fails at once.
 */
export function requireApiKey(auth: AuthServiceClient): RequestHandler {
  return async (req, res, next) => {
    const apiKey = req.get("x-api-key");
    if (!apiKey) throw new WinnowError("unauthorized", "The x-api-key header is missing.");
    const started = performance.now();
    const result = await callUnary(auth.validateKey.bind(auth), { apiKey }, { deadline: res.locals.deadline, signal: res.locals.signal });
    res.locals.timings = { auth: performance.now() - started };
    if (!result.valid) throw new WinnowError("unauthorized", "The API key is not valid.");
    res.locals.accountId = result.accountId;
    res.locals.keyId = result.keyId;
    res.locals.limits = result.limits;
    next();
  };
}

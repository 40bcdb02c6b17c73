import { WinnowError } from "@winnow/platform";
import type { RequestHandler } from "express";
import type { KeyCheck } from "./key-check.js";

/**
 * Requires a valid `x-api-key`. A key auth rejects is a 401; auth being
 * unreachable is a 503 from the auth client, never a 401, so an outage does not
 * look like a revoked key. Valid keys come from the gateway's cache while
 * auth's revocation feed keeps it current (see KeyCheck).
 */
export function requireApiKey(keys: KeyCheck): RequestHandler {
  return async (req, res, next) => {
    const apiKey = req.get("x-api-key");
    if (!apiKey) throw new WinnowError("unauthorized", "The x-api-key header is missing.");
    const started = performance.now();
    const { key, cached } = await keys.check(apiKey, { deadline: res.locals.deadline, signal: res.locals.signal });
    res.locals.timings = { auth: performance.now() - started };
    res.locals.keyFromCache = cached;
    if (!key) throw new WinnowError("unauthorized", "The API key is not valid.");
    res.locals.accountId = key.accountId;
    res.locals.keyId = key.keyId;
    res.locals.limits = key.limits;
    next();
  };
}

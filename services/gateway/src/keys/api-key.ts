import { WinnowError } from "@winnow/platform";
import type { RequestHandler } from "express";
import { hop } from "../http/request-context.js";
import type { KeyCheck } from "./key-check.js";
import type { KeyFailureLimit } from "./key-failures.js";

/**
 * Requires a valid `x-api-key`. A key auth rejects is a 401, and counts
 * against the client address's failed checks: past their limit the address
 * gets 429 without auth being asked (keys valid in the cache still pass).
 * Auth being unreachable is a 503 from the auth client, never a 401, so an
 * outage does not look like a revoked key. Valid keys come from the
 * gateway's cache while auth's revocation feed keeps it current (see KeyCheck).
 */
export function requireApiKey(keys: KeyCheck, failures: KeyFailureLimit): RequestHandler {
  return async (req, res, next) => {
    const apiKey = req.get("x-api-key");
    if (!apiKey) throw new WinnowError("unauthorized", "The x-api-key header is missing.");
    const address = req.ip ?? "unknown";
    const started = performance.now();
    const { key, cached } = await keys.check(apiKey, hop(res), () => failures.check(address));
    res.locals.timings = { auth: performance.now() - started };
    res.locals.keyFromCache = cached;
    if (!key) {
      await failures.failed(address);
      throw new WinnowError("unauthorized", "The API key is not valid.");
    }
    res.locals.accountId = key.accountId;
    res.locals.keyId = key.keyId;
    res.locals.limits = key.limits;
    next();
  };
}

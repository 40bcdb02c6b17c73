import { WinnowError } from "@winnow/platform";
import type { RequestHandler } from "express";
import { hop } from "../http/request-context.js";
import type { KeyCheck } from "./key-check.js";
import type { KeyFailureLimit } from "./key-failures.js";

/**
 * Requires a valid API key, in `x-api-key` or as `Authorization: Bearer <key>` (as Firecrawl's and OpenAI's clients
 * send it). A key auth rejects is a 401, and counts
 * against the client address's failed checks: past their limit the address
 * gets 429 without auth being asked (keys valid in the cache still pass).
 * Auth being unreachable is a 503 from the auth client, never a 401, so an
 * outage does not look like a revoked key. Valid keys come from the
 * gateway's cache while auth's revocation feed keeps it current (see KeyCheck).
 */
export function requireApiKey(keys: KeyCheck, failures: KeyFailureLimit): RequestHandler {
  return async (req, res, next) => {
    const apiKey = keyOf(req.get("x-api-key"), req.get("authorization"));
    if (!apiKey) {
      res.set("WWW-Authenticate", 'Bearer realm="winnow"');
      throw new WinnowError(
        "unauthorized",
        "No API key: send it in the x-api-key header or as Authorization: Bearer <key>.",
      );
    }
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

/** The key a request sends; refuses an Authorization of another scheme and two headers naming different keys. */
export function keyOf(header: string | undefined, authorization: string | undefined): string | undefined {
  if (authorization === undefined) return header || undefined;
  const bearer = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization)?.[1];
  if (!bearer) throw new WinnowError("unauthorized", "The Authorization header must be Bearer <API key>.");
  if (header && header !== bearer)
    throw new WinnowError("unauthorized", "x-api-key and Authorization: Bearer name different keys; send one.");
  return bearer;
}

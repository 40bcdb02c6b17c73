import type { RequestHandler } from "express";
import { callUnary, type Logger } from "@winnow/platform";
import type { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";

/**
 * Counts a successful scrape and its model tokens (the x-winnow-tokens-*
 * headers the scrape handler sets) against the key, once the answer has been
 * sent. Recording is after the fact: a failure is logged and never turns a
 * delivered scrape into an error.
 */
export function recordUsage(auth: AuthServiceClient, logger: Logger): RequestHandler {
  return (_req, res, next) => {
    res.once("finish", () => {
      if (res.statusCode !== 200) return;
      const keyId = res.locals.keyId!;
      const usage = {
        keyId,
        scrapes: 1,
        tokensIn: Number(res.getHeader("x-winnow-tokens-in") ?? 0),
        tokensOut: Number(res.getHeader("x-winnow-tokens-out") ?? 0),
      };
      callUnary(auth.recordUsage.bind(auth), usage, { deadline: new Date(Date.now() + 5_000) }).catch((error: unknown) =>
        logger.error({ err: error, ...usage, requestId: res.locals.requestId }, "could not record usage; this scrape is not counted"),
      );
    });
    next();
  };
}

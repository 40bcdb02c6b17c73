import type { Logger } from "@winnow/platform";
import type { RequestHandler } from "express";

/**
 * One line per request once it is answered: method, path, status, duration, request id, and the scraped host and the
 * key's id where there are; never bodies or keys.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on("finish", () => {
      const entry = {
        request_id: res.locals.requestId,
        target_host: res.locals.targetHost,
        key_id: res.locals.keyId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      };
      const message = `${req.method} ${req.path} ${res.statusCode}`;
      if (res.statusCode >= 500) logger.warn(entry, message);
      else logger.info(entry, message);
    });
    next();
  };
}

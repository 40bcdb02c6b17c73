import type { Logger, WinnowError } from "@winnow/platform";
import type { RequestHandler, Response } from "express";

/**
 * One line per request once it is answered: method, path, status, duration, request id, the scraped host and the
 * key's id where there are, and for a failure the problem type and detail that say why; never bodies or keys.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on("finish", () => {
      // The whole path: a router mounted on a prefix (the batch routes) sees only the rest of it in req.path.
      const path = req.originalUrl.split("?")[0] ?? req.path;
      const problem = res.locals.problem as WinnowError | undefined;
      const entry = {
        request_id: res.locals.requestId,
        target_host: res.locals.targetHost,
        key_id: res.locals.keyId,
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
        ...(problem && {
          problem_type: problem.type,
          problem_detail: problem.message,
          ...(problem.targetStatus && { target_status: problem.targetStatus }),
        }),
      };
      const message = `${req.method} ${path} ${res.statusCode}${problem ? ` ${problem.type}: ${problem.message}` : ""}`;
      if (res.statusCode >= 500) logger.warn(entry, message);
      else logger.info(entry, message);
    });
    next();
  };
}

/** Notes the problem a response answers, for its access line (sendProblem calls it). */
export function noteProblem(res: Response, problem: WinnowError): void {
  res.locals.problem = problem;
}

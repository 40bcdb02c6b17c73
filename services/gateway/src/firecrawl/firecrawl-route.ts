import type { WinnowError } from "@winnow/platform";
import type { RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { noteProblem } from "../http/access-log.js";
import { countScrape } from "../http/gateway-metrics.js";
import { jsonBody } from "../http/json-body.js";
import { problemDocument, retryAfter } from "../http/problem.js";
import { hop } from "../http/request-context.js";
import { pageMarkdown } from "../markdown/page-markdown.js";
import { serverTiming, setAnswerHeaders } from "../scrape/scrape.js";
import { loadPage, type ScrapeDependencies, type ScrapeOutcome, scrapePage } from "../scrape/scrape-page.js";
import { type FirecrawlVersion, parseFirecrawlScrape } from "./firecrawl-request.js";

export interface FirecrawlRouteOptions {
  scrape: ScrapeDependencies;
  /** What POST /scrape runs before its handler: the key, its limits, the scrape slot and usage. */
  keyed: RequestHandler[];
  maxBodyBytes: number;
  /** Maps anything thrown onto a problem type, as every other route's failures are. */
  toWinnowError: (error: unknown) => WinnowError;
}

/**
 * POST /v1/scrape and /v2/scrape: Firecrawl's scrape request and response, for what Winnow does (a JSON format in a
 * schema's shape, markdown), on the same scrape path as POST /scrape: the same key, limits, cache and usage. Failures
 * answer as Firecrawl's do, `{"success": false, "error": ...}`, with the problem type beside.
 */
export function firecrawlRouter(options: FirecrawlRouteOptions): express.Router {
  const router = express.Router();
  for (const version of ["v1", "v2"] as const) {
    router.post(
      `/${version}/scrape`,
      ...options.keyed,
      ...jsonBody(options.maxBodyBytes),
      firecrawlScrape(options.scrape, version),
    );
  }
  router.use(firecrawlErrors(options.toWinnowError));
  return router;
}

function firecrawlScrape(deps: ScrapeDependencies, version: FirecrawlVersion): RequestHandler {
  return async (req, res) => {
    const scrape = parseFirecrawlScrape(req.body, version);
    res.locals.targetHost = new URL(scrape.url).hostname;
    const context = { accountId: res.locals.accountId!, hop: hop(res) };
    let outcome: ScrapeOutcome | undefined;
    let page: RenderResponse;
    if (scrape.json) {
      outcome = await scrapePage(deps, scrape.json, context);
      page = outcome.page;
      // As POST /scrape states them; usage counts the scrape from these too.
      setAnswerHeaders(res, outcome);
      countScrape(outcome.path, outcome.cache.page);
    } else {
      const loaded = await loadPage(deps, scrape, context);
      page = loaded.page;
      Object.assign(res.locals.timings, loaded.timings);
      res.setHeader("Server-Timing", serverTiming(res.locals.timings, res.locals.keyFromCache));
    }
    const warnings = outcome?.result.warnings.map((warning) => warning.message) ?? [];
    res.status(200).json({
      success: true,
      data: {
        ...(scrape.markdown ? { markdown: pageMarkdown(page.html, page.finalUrl) } : {}),
        ...(outcome ? { json: JSON.parse(outcome.result.dataJson) as unknown } : {}),
        metadata: {
          title: page.title,
          sourceURL: scrape.url,
          url: page.finalUrl,
          statusCode: page.status,
          contentType: page.contentType,
          ...(outcome ? { cacheState: outcome.cache.page } : {}),
        },
        ...(warnings.length > 0 ? { warning: warnings.join("; ") } : {}),
      },
    });
  };
}

/** Firecrawl's error shape: its clients read `error`; the problem type and the violations stay for those who look. */
function firecrawlErrors(toWinnowError: (error: unknown) => WinnowError): ErrorRequestHandler {
  return (thrown: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    const error = toWinnowError(thrown);
    const problem = problemDocument(error, res.locals.requestId);
    noteProblem(res, error);
    res.status(retryAfter(res, error)).json({
      success: false,
      error: problem.detail,
      code: error.type,
      ...(problem.errors ? { details: problem.errors } : {}),
    });
  };
}

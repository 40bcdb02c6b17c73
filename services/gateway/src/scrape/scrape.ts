import {
  type Alternative,
  type Engine,
  type Evidence,
  engineToJSON,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type RenderPath, renderPathToJSON } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { RequestHandler, Response } from "express";
import { countScrape } from "../http/gateway-metrics.js";
import { hop } from "../http/request-context.js";
import { PAGES_HEADER, pagesHeader } from "../listing/pages-read.js";
import { type ListingSettings, readListing } from "../listing/read-listing.js";
import { pageMarkdown } from "../markdown/page-markdown.js";
import {
  FIELD_STATUS_HEADER,
  fieldStatusHeader,
  statusEnvelope,
  WARNINGS_HEADER,
  warningsHeader,
} from "./field-status.js";
import { type ScrapeDependencies, type ScrapeOutcome, scrapePage } from "./scrape-page.js";
import { type ListingLimits, parseScrapeRequest, type ScrapeRequest } from "./scrape-request.js";

/**
 * POST /scrape: render the page, fill the schema, answer with JSON in the
 * schema's shape (scrape-page.ts), with what it cost and where it came from in headers.
 */
export function scrapeHandler(deps: ScrapeDependencies, listing: ListingLimits & ListingSettings): RequestHandler {
  return async (req, res) => {
    const request = parseScrapeRequest(req.body, listing);
    res.locals.targetHost = new URL(request.url).hostname;
    const context = { accountId: res.locals.accountId!, hop: hop(res) };
    // One page unless the request asks for more of the listing or the records' own pages (listing/read-listing.ts).
    const multiPage = request.listing.pages > 1 || request.listing.details;
    const listed = multiPage ? await readListing(deps, request, context, listing) : undefined;
    const outcome = listed ?? (await scrapePage(deps, request, context));
    if (listed) res.setHeader(PAGES_HEADER, pagesHeader(listed.pages));
    setAnswerHeaders(res, outcome);
    res.status(200).type("application/json").send(answerBody(outcome, request));
    countScrape(outcome.path, outcome.cache.page);
  };
}

/**
 * What a scrape's answer says in headers: its timings, engine and render path, what it cost (usage counts it from
 * these) and what came from cache, each value's status and the warnings (documented in docs/openapi.ts).
 */
export function setAnswerHeaders(res: Response, outcome: ScrapeOutcome): void {
  const { page, result, cache } = outcome;
  Object.assign(res.locals.timings, outcome.timings);
  res.setHeader("Server-Timing", serverTiming(res.locals.timings, res.locals.keyFromCache));
  res.setHeader("x-winnow-engine", engineName(result.engine));
  res.setHeader("x-winnow-render-path", renderPathName(page.path));
  res.setHeader("x-winnow-path", outcome.path);
  res.setHeader("x-winnow-tokens-in", String(outcome.tokens.input));
  res.setHeader("x-winnow-tokens-out", String(outcome.tokens.output));
  res.setHeader("Winnow-Cache", `page=${cache.page}, data=${cache.data}, age=${cache.ageSeconds}`);
  setHeaderIf(res, FIELD_STATUS_HEADER, fieldStatusHeader(result.fieldStatus));
  setHeaderIf(res, WARNINGS_HEADER, warningsHeader(result.warnings));
}

/** The data as the extractor wrote it, alone or in the evidence envelope: the body of POST /scrape, a batch result's. */
export function answerBody(
  { page, result, cache, screenshot, evidencePages }: ScrapeOutcome,
  { evidence, markdown }: Pick<ScrapeRequest, "evidence" | "markdown">,
): string {
  if (!evidence) return result.dataJson;
  const envelope = {
    ...(markdown ? { markdown: pageMarkdown(page.html, page.finalUrl) } : {}),
    evidence: evidenceByPointer(result.evidence, evidencePages),
    ...statusEnvelope(result.fieldStatus, result.warnings),
    cache: { page: cache.page, data: cache.data, age_seconds: cache.ageSeconds },
    ...(screenshot ? { screenshot } : {}),
  };
  return `{"data":${result.dataJson},${JSON.stringify(envelope).slice(1)}`;
}

/**
 * The extractor's evidence as the API states it: by JSON pointer, empty text and selector left out; for an answer
 * read from several pages, the page of each value.
 */
function evidenceByPointer(evidence: Evidence[], pages: Record<string, string> = {}): Record<string, unknown> {
  return Object.fromEntries(
    evidence.map(({ pointer, source, text, selector, confidence, grounded, status, alternative }) => [
      pointer,
      {
        ...(pages[pointer] ? { page: pages[pointer] } : {}),
        source,
        ...(text ? { text } : {}),
        ...(selector ? { selector } : {}),
        confidence,
        grounded,
        status,
        ...(alternative ? { alternative: alternativeOf(alternative) } : {}),
      },
    ]),
  );
}

/** The value an engine read where another's was kept: the value itself (not its JSON), where read, empty text left out. */
function alternativeOf({ valueJson, source, text, grounded }: Alternative): Record<string, unknown> {
  return { value: JSON.parse(valueJson) as unknown, source, ...(text ? { text } : {}), grounded };
}

function setHeaderIf(res: Response, name: string, value: string | undefined): void {
  if (value !== undefined) res.setHeader(name, value);
}

/** The Server-Timing header: each stage's milliseconds, and whether the key was checked from memory. */
export function serverTiming(timings: Record<string, number>, keyFromCache: boolean | undefined): string {
  return Object.entries(timings)
    .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}${name === "auth" && keyFromCache ? ';desc="cached"' : ""}`)
    .join(", ");
}

export function engineName(engine: Engine): string {
  return apiName(engineToJSON(engine), "ENGINE_");
}

export function renderPathName(path: RenderPath): string {
  return apiName(renderPathToJSON(path), "RENDER_PATH_");
}

/**
 * An enum value as the API's headers name it: the generated proto name without its
 * prefix, in lower case (ENGINE_BUILTIN is "builtin", RENDER_PATH_STATIC "static");
 * "unknown" for an unspecified or unrecognized value.
 */
function apiName(protoName: string, prefix: string): string {
  if (!protoName.startsWith(prefix) || protoName === `${prefix}UNSPECIFIED`) return "unknown";
  return protoName.slice(prefix.length).toLowerCase();
}

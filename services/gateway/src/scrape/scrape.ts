import { Engine, type Evidence, engineToJSON } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import {
  RenderMode,
  type RenderOptions,
  type RenderPath,
  renderPathToJSON,
} from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { RequestHandler, Response } from "express";
import type { Backends } from "../backends.js";
import {
  FIELD_STATUS_HEADER,
  fieldStatusHeader,
  statusEnvelope,
  WARNINGS_HEADER,
  warningsHeader,
} from "./field-status.js";
import { parseScrapeRequest, type ScrapeRequest } from "./scrape-request.js";

/** What one scrape answers: the body as the API sends it, and what the headers and usage say about it. */
export interface ScrapeOutcome {
  /** The data as the extractor wrote it, alone or in the evidence envelope (JSON text). */
  body: string;
  engine: string;
  renderPath: string;
  /** Model tokens, when a model answered. */
  usage: { tokensIn: number; tokensOut: number } | undefined;
  /** Absent when the extractor said nothing of field status or warnings. */
  fieldStatus: string | undefined;
  warnings: string | undefined;
  /** Milliseconds per step (render, its split, extract, screenshot), for Server-Timing. */
  timings: Record<string, number>;
}

/** Who the scrape is for and the time it has: the key's account owns what its pages teach. */
export interface ScrapeContext {
  accountId: string;
  deadline: Date;
  signal: AbortSignal;
}

/**
 * Scrapes one page for an account: render the page, fill the schema. Both
 * hops share the one deadline. POST /scrape and each page of a batch job run
 * exactly this; failures throw WinnowErrors.
 */
export async function scrapePage(
  backends: Backends,
  request: ScrapeRequest,
  context: ScrapeContext,
): Promise<ScrapeOutcome> {
  const hop = { deadline: context.deadline, signal: context.signal };
  const { renderer, extractor } = backends;
  const timings: Record<string, number> = {};

  let started = performance.now();
  const page = await renderer.render({ url: request.url, options: request.renderOptions }, hop);
  timings.render = performance.now() - started;
  // The renderer's own split of that time: waiting for a browser page, loading, letting the page settle.
  if (page.timings) {
    Object.assign(timings, {
      "render-queue": page.timings.queueMs,
      "render-navigation": page.timings.navigationMs,
      "render-settle": page.timings.settleMs,
    });
  }

  started = performance.now();
  const result = await extractor.extract(
    {
      url: page.finalUrl,
      html: page.html,
      schemaJson: request.schemaJson,
      taskDescription: request.taskDescription,
      options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: request.evidence },
      tenant: context.accountId,
      // The page is the renderer's, so it may teach.
      learn: true,
      // A render that ran out of time after the HTML arrived: the extractor returns `render-incomplete` among the
      // warnings and marks the fields the page does not hold `truncated`.
      pageWarnings: page.incomplete
        ? [
            {
              code: "render-incomplete",
              message: "the page's time ran out after its HTML arrived: it was read as it was then, not settled",
              path: "",
            },
          ]
        : [],
    },
    hop,
  );
  timings.extract = performance.now() - started;

  let screenshot: string | undefined;
  if (request.screenshot) {
    started = performance.now();
    screenshot = await screenshotOf(backends, page.finalUrl, request.renderOptions, result.evidence, hop);
    timings.screenshot = performance.now() - started;
  }

  const envelope = {
    evidence: evidenceByPointer(result.evidence),
    ...statusEnvelope(result.fieldStatus, result.warnings),
    ...(screenshot ? { screenshot } : {}),
  };
  return {
    body: request.evidence ? `{"data":${result.dataJson},${JSON.stringify(envelope).slice(1)}` : result.dataJson,
    engine: engineName(result.engine),
    renderPath: renderPathName(page.path),
    usage: result.usage && { tokensIn: result.usage.promptTokens, tokensOut: result.usage.completionTokens },
    fieldStatus: fieldStatusHeader(result.fieldStatus),
    warnings: warningsHeader(result.warnings),
    timings,
  };
}

/** POST /scrape: one page, answered with JSON in the schema's shape. */
export function scrapeHandler(backends: Backends): RequestHandler {
  return async (req, res) => {
    const request = parseScrapeRequest(req.body);
    const { accountId, deadline, signal } = res.locals;
    const outcome = await scrapePage(backends, request, { accountId: accountId!, deadline, signal });
    Object.assign(res.locals.timings, outcome.timings);
    res.setHeader("Server-Timing", serverTiming(res.locals.timings, res.locals.keyFromCache));
    res.setHeader("x-winnow-engine", outcome.engine);
    res.setHeader("x-winnow-render-path", outcome.renderPath);
    if (outcome.usage) {
      res.setHeader("x-winnow-tokens-in", String(outcome.usage.tokensIn));
      res.setHeader("x-winnow-tokens-out", String(outcome.usage.tokensOut));
    }
    setHeaderIf(res, FIELD_STATUS_HEADER, outcome.fieldStatus);
    setHeaderIf(res, WARNINGS_HEADER, outcome.warnings);
    res.status(200).type("application/json").send(outcome.body);
  };
}

/**
 * The page loaded again in the browser, with the elements the evidence
 * names outlined, as a data: URL. A second load: the selectors exist only
 * once the first load's page has been extracted.
 */
async function screenshotOf(
  backends: Backends,
  url: string,
  options: RenderOptions,
  evidence: Evidence[],
  hop: { deadline: Date; signal: AbortSignal },
): Promise<string> {
  const outline = [...new Set(evidence.map((item) => item.selector).filter((selector) => selector !== ""))];
  const { renderer } = backends;
  const shot = await renderer.render(
    { url, options: { ...options, mode: RenderMode.RENDER_MODE_BROWSER, screenshot: true, outline } },
    hop,
  );
  return `data:image/jpeg;base64,${shot.screenshot.toString("base64")}`;
}

/** The extractor's evidence as the API states it: by JSON pointer, empty text and selector left out. */
function evidenceByPointer(evidence: Evidence[]): Record<string, unknown> {
  return Object.fromEntries(
    evidence.map(({ pointer, source, text, selector, confidence, grounded, status }) => [
      pointer,
      { source, ...(text ? { text } : {}), ...(selector ? { selector } : {}), confidence, grounded, status },
    ]),
  );
}

function setHeaderIf(res: Response, name: string, value: string | undefined): void {
  if (value !== undefined) res.setHeader(name, value);
}

function serverTiming(timings: Record<string, number>, keyFromCache: boolean | undefined): string {
  return Object.entries(timings)
    .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}${name === "auth" && keyFromCache ? ';desc="cached"' : ""}`)
    .join(", ");
}

function engineName(engine: Engine): string {
  return apiName(engineToJSON(engine), "ENGINE_");
}

function renderPathName(path: RenderPath): string {
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

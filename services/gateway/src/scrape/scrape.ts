import type { CallOptions } from "@winnow/platform";
import { Engine, type Evidence, engineToJSON } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import {
  RenderMode,
  type RenderOptions,
  type RenderPath,
  renderPathToJSON,
} from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { RequestHandler, Response } from "express";
import type { Backends } from "../backends.js";
import { hop as hopOf } from "../http/request-context.js";
import {
  FIELD_STATUS_HEADER,
  fieldStatusHeader,
  statusEnvelope,
  WARNINGS_HEADER,
  warningsHeader,
} from "./field-status.js";
import { parseScrapeRequest } from "./scrape-request.js";

/**
 * POST /scrape: render the page, fill the schema, answer with JSON in the
 * schema's shape. Both hops share the request's one deadline.
 */
export function scrapeHandler(backends: Backends): RequestHandler {
  return async (req, res) => {
    const request = parseScrapeRequest(req.body);
    res.locals.targetHost = new URL(request.url).hostname;
    const hop = hopOf(res);
    const { renderer, extractor } = backends;

    let started = performance.now();
    const page = await renderer.render({ url: request.url, options: request.renderOptions }, hop);
    res.locals.timings.render = performance.now() - started;
    // The renderer's own split of that time: waiting for a browser page, loading, letting the page settle.
    if (page.timings) {
      Object.assign(res.locals.timings, {
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
        fieldHints: request.fieldHints,
        taskDescription: request.taskDescription,
        options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: request.evidence },
        // The key's account owns what its pages teach; the renderer's signature lets the page teach.
        tenant: res.locals.accountId!,
        learn: true,
        pageSignature: page.signature,
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
    res.locals.timings.extract = performance.now() - started;

    let screenshot: string | undefined;
    if (request.screenshot) {
      started = performance.now();
      screenshot = await screenshotOf(backends, page.finalUrl, request.renderOptions, result.evidence, hop);
      res.locals.timings.screenshot = performance.now() - started;
    }

    res.setHeader("Server-Timing", serverTiming(res.locals.timings, res.locals.keyFromCache));
    res.setHeader("x-winnow-engine", engineName(result.engine));
    res.setHeader("x-winnow-render-path", renderPathName(page.path));
    if (result.usage) {
      res.setHeader("x-winnow-tokens-in", String(result.usage.promptTokens));
      res.setHeader("x-winnow-tokens-out", String(result.usage.completionTokens));
    }

    setHeaderIf(res, FIELD_STATUS_HEADER, fieldStatusHeader(result.fieldStatus));
    setHeaderIf(res, WARNINGS_HEADER, warningsHeader(result.warnings));

    // The data as the extractor wrote it, alone or in the evidence envelope.
    const envelope = {
      evidence: evidenceByPointer(result.evidence),
      ...statusEnvelope(result.fieldStatus, result.warnings),
      ...(screenshot ? { screenshot } : {}),
    };
    const body = request.evidence ? `{"data":${result.dataJson},${JSON.stringify(envelope).slice(1)}` : result.dataJson;
    res.status(200).type("application/json").send(body);
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
  hop: CallOptions,
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

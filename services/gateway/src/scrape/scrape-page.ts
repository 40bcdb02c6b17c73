import type { CallOptions } from "@winnow/platform";
import { Engine, type Evidence, type ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import {
  RenderMode,
  type RenderOptions,
  type RenderResponse,
} from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { Backends } from "../backends.js";
import type { ScrapeCache } from "../cache/scrape-cache.js";
import type { ScrapeRequest } from "./scrape-request.js";

/** What answered a scrape's data: the cache (no extraction at all), a learned template, the builtin engine, the model. */
type AnswerPath = "cache" | "template" | "builtin" | "model";

/** What the scrape cache gave: the page ("hit": not loaded again), the data, and the page's age in whole seconds. */
interface CacheOutcome {
  page: "hit" | "miss";
  data: "hit" | "miss";
  ageSeconds: number;
}

/** One scrape's outcome: everything the HTTP answer (or a batch job's result) says. */
export interface ScrapeOutcome {
  page: RenderResponse;
  result: ExtractResponse;
  /** With options.screenshot: the page with the evidence's elements outlined, as a data: URL. */
  screenshot: string | undefined;
  path: AnswerPath;
  /** Model tokens this scrape used (0 when no model was called, as on a cache hit). */
  tokens: { input: number; output: number };
  cache: CacheOutcome;
  /** Milliseconds spent per stage, for Server-Timing. */
  timings: Record<string, number>;
  /** When the answer read several pages (a whole listing): the page each value was read on, by pointer. */
  evidencePages?: Record<string, string>;
}

export interface ScrapeDependencies {
  backends: Backends;
  /** Undefined when the operator turned caching off (CACHE_MAX_ENTRIES=0). */
  cache: ScrapeCache | undefined;
  /** Seconds, when a request does not say (CACHE_DEFAULT_MAX_AGE). */
  defaultMaxAgeSeconds: number;
  /** Every account reads and writes one cache (CACHE_SHARED); else each its own. */
  sharedCache: boolean;
  /** A max_age 0 scrape keeps its page and answer too (CACHE_STORE_ALWAYS); else only a scrape that may read them. */
  storeAlways: boolean;
}

export interface ScrapeContext {
  accountId: string;
  /** The request's deadline, abort signal and metadata (its request id, target host and key id) for both hops. */
  hop: CallOptions;
}

/**
 * Renders the page (or takes it from cache when it is younger than max_age),
 * fills the schema (or takes the answer kept for the same page and question),
 * and takes the screenshot asked for. Both hops share the request's one deadline.
 * `knownFields`: fields the caller already holds a value for (a record's own page read for what its listing left).
 */
export async function scrapePage(
  deps: ScrapeDependencies,
  request: ScrapeRequest,
  context: ScrapeContext,
  knownFields: readonly string[] = [],
): Promise<ScrapeOutcome> {
  const { backends } = deps;
  const { hop } = context;
  const { reading, keeping, scope } = cacheUse(deps, request, context);
  const { page, renderedAt, timings } = await loadPage(deps, request, context);
  const fresh = renderedAt !== undefined;
  let started: number;

  const question = {
    schemaJson: request.schemaJson,
    fieldHints: request.fieldHints,
    fieldRules: request.fieldRules,
    taskDescription: request.taskDescription,
    evidence: request.evidence,
    screenshot: request.screenshot,
    // A listing of more pages follows the page's next link; an answer kept without it must not answer one.
    nextPage: request.listing.pages > 1,
    knownFields,
  };
  const dataKey = keeping && (await keeping.dataKey(scope, page, question));
  const stored = reading && dataKey ? await reading.data(dataKey) : undefined;
  const cacheOutcome: CacheOutcome = {
    page: fresh ? "hit" : "miss",
    data: stored ? "hit" : "miss",
    ageSeconds: renderedAt !== undefined ? Math.max(0, Math.floor((Date.now() - renderedAt) / 1000)) : 0,
  };
  if (stored) {
    return {
      page,
      result: stored.response,
      screenshot: stored.screenshot,
      path: "cache",
      tokens: { input: 0, output: 0 },
      cache: cacheOutcome,
      timings,
    };
  }

  started = performance.now();
  const result = await backends.extractor.extract(
    {
      url: page.finalUrl,
      html: page.html,
      schemaJson: request.schemaJson,
      fieldHints: request.fieldHints,
      fieldRules: request.fieldRules,
      taskDescription: request.taskDescription,
      options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: request.evidence },
      // The key's account owns what its pages teach; the renderer's signature lets the page teach, once: a page
      // from cache taught when it was rendered.
      tenant: context.accountId,
      learn: !fresh,
      pageSignature: page.signature,
      wantNextPage: question.nextPage,
      knownFields: [...knownFields],
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
    screenshot = await screenshotOf(
      backends,
      { url: page.finalUrl, accountId: context.accountId },
      request.renderOptions,
      result.evidence,
      hop,
    );
    timings.screenshot = performance.now() - started;
  }
  if (dataKey) keeping?.keepData(dataKey, context.accountId, result, screenshot);
  return {
    page,
    result,
    screenshot,
    path: answerPath(result),
    tokens: { input: result.usage?.promptTokens ?? 0, output: result.usage?.completionTokens ?? 0 },
    cache: cacheOutcome,
    timings,
  };
}

/** A page loaded for a request: rendered now, or kept (renderedAt: when it was rendered) and young enough. */
interface LoadedPage {
  page: RenderResponse;
  renderedAt: number | undefined;
  /** Milliseconds spent per stage, for Server-Timing. */
  timings: Record<string, number>;
}

/** The page of a scrape, from cache when it is younger than max_age, else rendered (and kept when the cache keeps it). */
export async function loadPage(
  deps: ScrapeDependencies,
  request: Pick<ScrapeRequest, "url" | "renderOptions" | "maxAgeSeconds">,
  context: ScrapeContext,
): Promise<LoadedPage> {
  const { reading, keeping, scope, maxAgeSeconds } = cacheUse(deps, request, context);
  const timings: Record<string, number> = {};
  let started = performance.now();
  const kept = await reading?.page(scope, request.url, request.renderOptions);
  const fresh = kept && Date.now() - kept.renderedAt <= maxAgeSeconds * 1000 ? kept : undefined;
  if (fresh) {
    timings.cache = performance.now() - started;
    return { page: fresh.page, renderedAt: fresh.renderedAt, timings };
  }
  started = performance.now();
  const page = await deps.backends.renderer.render(
    // The renderer shares its browser pages fairly between accounts.
    { url: request.url, options: request.renderOptions, accountId: context.accountId },
    context.hop,
  );
  timings.render = performance.now() - started;
  // The renderer's own split of that time: waiting for a browser page, loading, letting the page settle.
  if (page.timings) {
    timings["render-queue"] = page.timings.queueMs;
    timings["render-navigation"] = page.timings.navigationMs;
    timings["render-settle"] = page.timings.settleMs;
  }
  keeping?.keepPage(scope, context.accountId, request.url, request.renderOptions, page);
  return { page, renderedAt: undefined, timings };
}

/** Which cache a request reads and which keeps what it loads, and the account's part of it. */
function cacheUse(deps: ScrapeDependencies, request: Pick<ScrapeRequest, "maxAgeSeconds">, context: ScrapeContext) {
  const { cache } = deps;
  const maxAgeSeconds = request.maxAgeSeconds ?? deps.defaultMaxAgeSeconds;
  // With max_age 0 nothing is read from cache, and nothing is kept unless the operator asks: a write costs the
  // gateway several times a scrape's own CPU with the embedded store (bench:load), for a reuse no request asked for.
  const reading = cache && maxAgeSeconds > 0 ? cache : undefined;
  const keeping = reading ?? (deps.storeAlways ? cache : undefined);
  return { reading, keeping, scope: deps.sharedCache ? "" : context.accountId, maxAgeSeconds };
}

/** The model when it was called (hybrid answers too), else the engine that answered. */
function answerPath(result: ExtractResponse): AnswerPath {
  if (result.engine === Engine.ENGINE_LLM || (result.usage?.totalTokens ?? 0) > 0) return "model";
  return result.engine === Engine.ENGINE_TEMPLATE ? "template" : "builtin";
}

/**
 * The page loaded again in the browser, with the elements the evidence
 * names outlined, as a data: URL. A second load: the selectors exist only
 * once the first load's page has been extracted.
 */
async function screenshotOf(
  backends: Backends,
  target: { url: string; accountId: string },
  options: RenderOptions,
  evidence: Evidence[],
  hop: CallOptions,
): Promise<string> {
  const outline = [...new Set(evidence.map((item) => item.selector).filter((selector) => selector !== ""))];
  const shot = await backends.renderer.render(
    { ...target, options: { ...options, mode: RenderMode.RENDER_MODE_BROWSER, screenshot: true, outline } },
    hop,
  );
  return `data:image/jpeg;base64,${shot.screenshot.toString("base64")}`;
}

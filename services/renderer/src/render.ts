import { performance } from "node:perf_hooks";
import { errors, type BrowserContext, type BrowserContextOptions, type Page, type Response } from "playwright-core";
import { WinnowError } from "@winnow/platform";
import { RenderPath, type RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { BrowserHost } from "./browser.js";
import { memoizedRefusal, type EgressGuard } from "./egress.js";
import type { PageSlots } from "./page-slots.js";
import { toRenderError } from "./render-errors.js";

/** One validated render: what to load, what to wait for, and how long it may take in all. */
export interface RenderJob {
  url: URL;
  /** CSS selector to wait for; empty for none. */
  waitFor: string;
  timeoutMs: number;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

export interface BrowserRendererOptions {
  browser: BrowserHost;
  guard: EgressGuard;
  slots: PageSlots;
  maxHtmlBytes: number;
}

/** Longest wait for the network to go quiet after DOM ready; pages that poll forever never do. */
const SETTLE_CAP_MS = 1500;
/** Not needed for the DOM, and the bulk of the bytes. */
const SKIPPED_RESOURCE_TYPES = new Set(["image", "font", "media"]);
const HTML_MEDIA_TYPES = new Set(["text/html", "application/xhtml+xml"]);

const CONTEXT_OPTIONS: BrowserContextOptions = {
  serviceWorkers: "block",
  acceptDownloads: false,
};

/** Renders pages in the shared browser, one fresh context per render. */
export class BrowserRenderer {
  constructor(private readonly options: BrowserRendererOptions) {}

  async render(job: RenderJob): Promise<RenderResponse> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const remaining = () => Math.max(1, job.timeoutMs - elapsed());
    const signal = AbortSignal.any([job.signal, AbortSignal.timeout(job.timeoutMs)]);
    const refusal = memoizedRefusal(this.options.guard);

    // Refuse early, before a page slot is spent; the route handler asks again (from the memo).
    const refused = await untilAborted(refusal(job.url.href), signal);
    if (refused) throw refused;
    const release = await this.options.slots.acquire(signal);
    const queueMs = elapsed();
    try {
      const context = await this.options.browser.newContext(CONTEXT_OPTIONS);
      // Closing the context is what interrupts whatever Playwright call is pending.
      const closeContext = () => context.close().catch(() => undefined);
      signal.addEventListener("abort", closeContext, { once: true });
      try {
        const timings = { queueMs, navigationMs: 0, settleMs: 0, totalMs: 0 };
        const result = await this.#load(await this.#open(context, refusal), job, remaining, timings);
        return { ...result, path: RenderPath.RENDER_PATH_BROWSER, timings: { ...timings, totalMs: elapsed() } };
      } catch (error) {
        throw toRenderError(error, {
          aborted: signal.aborted,
          browserConnected: this.options.browser.connected,
          timeoutMs: job.timeoutMs,
        });
      } finally {
        signal.removeEventListener("abort", closeContext);
        await closeContext();
      }
    } finally {
      release();
    }
  }

  /** A page whose every request, WebSocket and redirect hop goes past the egress guard. */
  async #open(context: BrowserContext, refusal: (url: string) => Promise<WinnowError | undefined>): Promise<GuardedPage> {
    await context.route("**/*", async (route) => {
      const request = route.request();
      const refused = SKIPPED_RESOURCE_TYPES.has(request.resourceType()) ? "blockedbyclient"
        : (await refusal(request.url())) ? "accessdenied"
        : undefined;
      // Fails only when the context is already closing; the request no longer matters then.
      await (refused ? route.abort(refused) : route.continue()).catch(() => undefined);
    });
    await context.routeWebSocket(/.*/, async (ws) => {
      if (await refusal(ws.url().replace(/^ws/, "http"))) await ws.close({ code: 1008, reason: "not allowed" });
      else ws.connectToServer();
    });
    // Playwright does not route redirect hops, so they are checked as they are seen.
    const hops: Promise<WinnowError | undefined>[] = [];
    context.on("request", (request) => {
      if (request.redirectedFrom()) hops.push(refusal(request.url()));
    });
    return {
      page: await context.newPage(),
      async assertRedirectsAllowed() {
        const refused = (await Promise.all(hops)).find((verdict) => verdict !== undefined);
        if (refused) throw new WinnowError("url-not-allowed", `the page redirected to a refused URL: ${refused.message}`);
      },
    };
  }

  async #load(
    { page, assertRedirectsAllowed }: GuardedPage,
    job: RenderJob,
    remaining: () => number,
    timings: { navigationMs: number; settleMs: number },
  ): Promise<Omit<RenderResponse, "path" | "timings">> {
    if (job.waitFor) await assertValidSelector(page, job.waitFor);

    let mark = performance.now();
    const response = await page
      .goto(job.url.href, { waitUntil: "domcontentloaded", timeout: remaining() })
      .finally(assertRedirectsAllowed); // a refused hop outranks whatever the navigation ran into
    timings.navigationMs = performance.now() - mark;
    if (!response) throw new WinnowError("target-unreachable", "the navigation produced no response");
    const contentType = assertRenderable(response);

    mark = performance.now();
    await page
      .waitForLoadState("networkidle", { timeout: Math.min(SETTLE_CAP_MS, remaining()) })
      .catch(ignoreTimeout);
    if (job.waitFor) {
      await page
        .waitForFunction((selector) => document.querySelector(selector) !== null, job.waitFor, {
          timeout: remaining(),
          polling: 100,
        })
        .catch((error: unknown) => {
          if (!(error instanceof errors.TimeoutError)) throw error;
          throw new WinnowError("target-timeout", `"${job.waitFor}" did not appear on the page in time`);
        });
    }
    timings.settleMs = performance.now() - mark;

    const html = await this.#html(page);
    const title = await page.title();
    await assertRedirectsAllowed();
    return { finalUrl: page.url(), status: response.status(), contentType, html, title };
  }

  /** The serialized DOM, refused when larger than the cap (measured in the page first, so a huge DOM never crosses over). */
  async #html(page: Page): Promise<string> {
    const tooLarge = () => new WinnowError("page-too-large", `the page is larger than ${this.options.maxHtmlBytes} bytes`);
    const chars = await page.evaluate(() => document.documentElement?.outerHTML.length ?? 0);
    // A UTF-8 byte count is never smaller than the UTF-16 length.
    if (chars > this.options.maxHtmlBytes) throw tooLarge();
    const html = await page.content();
    if (Buffer.byteLength(html) > this.options.maxHtmlBytes) throw tooLarge();
    return html;
  }
}

interface GuardedPage {
  page: Page;
  /** Throws "url-not-allowed" when any redirect seen so far led somewhere the guard refuses. */
  assertRedirectsAllowed(): Promise<void>;
}

/** Checked on the blank page before navigating, so a bad selector costs no page load. */
async function assertValidSelector(page: Page, selector: string): Promise<void> {
  const valid = await page.evaluate((s) => {
    try {
      document.querySelector(s);
      return true;
    } catch {
      return false;
    }
  }, selector);
  if (!valid) throw new WinnowError("invalid-request", `wait_for is not a valid CSS selector: ${selector}`);
}

/** Status and media type of the main document; returns the Content-Type to report. */
function assertRenderable(response: Response): string {
  const status = response.status();
  if (status >= 400) {
    throw new WinnowError("target-http-error", `the target answered HTTP ${status}`, { targetStatus: status });
  }
  const contentType = response.headers()["content-type"] ?? "";
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase();
  // No Content-Type at all: Chromium sniffed the body, and it rendered.
  if (mediaType && !HTML_MEDIA_TYPES.has(mediaType)) {
    throw new WinnowError("unsupported-content", `the target answered ${mediaType}, not a web page`);
  }
  return contentType;
}

/** DNS lookups cannot be cancelled, but the render need not wait for one past its time budget. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new WinnowError("target-timeout", "resolving the host took longer than the time limit"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function ignoreTimeout(error: unknown): void {
  if (!(error instanceof errors.TimeoutError)) throw error;
}

import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { deadlineSignal, type EgressGuard, memoizedRefusal, WinnowError } from "@winnow/platform";
import { RenderPath } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import {
  type BrowserContext,
  type BrowserContextOptions,
  errors,
  type Page,
  type Request,
  type Response,
} from "playwright-core";
import { pageContent } from "../content-type.js";
import { type EgressProxy, type EgressSession, withoutFragment } from "../egress/egress-proxy.js";
import { charsetLabel, decodeDocument } from "../html-encoding.js";
import type { RenderedPage } from "../page-renderer.js";
import type { RenderJob } from "../render-request.js";
import { abortable } from "../static/static-fetch.js";
import { inspectStaticPage } from "../static/static-page.js";
import type { BrowserHost } from "./browser.js";
import { watchDecodedBytes } from "./decoded-bytes.js";
import {
  noteActivity,
  noteScrollListeners,
  outlineElements,
  readDocument,
  SCROLL_FIRST,
  SCROLL_LISTENER_MARK,
  STILL_PARSING,
  scrollOneScreen,
  selectorParses,
  selectorPresent,
} from "./in-page.js";
import { InFlightRequests, pageQuiet } from "./page-quiet.js";
import type { PageSlots } from "./page-slots.js";
import { relabelMisreadDocument } from "./relabel-document.js";
import { toRenderError } from "./render-errors.js";

export interface BrowserRendererOptions {
  browser: BrowserHost;
  guard: EgressGuard;
  /** Each render's context goes out through a session of its own. */
  egress: EgressProxy;
  slots: PageSlots;
  maxHtmlBytes: number;
  /** Cap on what all of a page's responses decode to together (see decoded-bytes.ts). */
  maxDecodedBytes: number;
  /** The static path's redirect limit; the browser's navigations are bounded by it too. */
  maxRedirects: number;
  /** The heap limit the browser's renderer processes run with (browser.ts), named when a page crashes past it. */
  maxHeapMb: number;
}

/** How long a render waits for its context to close before it gives the page slot back regardless. */
const CLOSE_GRACE_MS = 2000;
/** Longest wait for the page to go quiet after DOM ready; pages that poll or animate forever never do. */
const SETTLE_CAP_MS = 1500;
/** How long the page must make no request and no change to its DOM to count as settled (see pageQuiet). */
const QUIET_MS = 100;
/** Timers due within this long are waited for: a page filling itself in shortly after load. */
const SOON_TIMER_MS = 1000;
/** Client-side navigations followed before a page counts as never settling. */
const MAX_CLIENT_NAVIGATIONS = 3;
/** Chromium would go around a proxy for loopback; the egress guard must see those requests too. */
const PROXY_BYPASS = "<-loopback>";
/** Lazy content: at most this many screens scrolled, pausing this long after each. */
const MAX_SCROLL_SCREENS = 10;
const SCROLL_PAUSE_MS = 100;
/**
 * Kept at the end of a render's time to answer with what is in hand when the page has not settled by then (at most a
 * quarter of the render's time).
 */
const IN_HAND_RESERVE_MS = 1500;
/** How long the DOM so far may take to read before the document as first received answers instead. */
const IN_HAND_DOM_READ_MS = 500;
/** Not needed for the DOM, and the bulk of the bytes. */
const SKIPPED_RESOURCE_TYPES = new Set(["image", "font", "media"]);

const CONTEXT_OPTIONS: BrowserContextOptions = {
  serviceWorkers: "block",
  acceptDownloads: false,
};

/** Renders pages in the shared browser, one fresh context per render. */
export class BrowserRenderer {
  constructor(private readonly options: BrowserRendererOptions) {}

  async render(job: RenderJob): Promise<RenderedPage> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const remaining = () => Math.max(1, job.timeoutMs - elapsed());
    const deadline = deadlineSignal({ signal: job.signal, ms: job.timeoutMs });
    try {
      return await this.#render(job, deadline.signal, elapsed, remaining);
    } finally {
      deadline.dispose();
    }
  }

  async #render(
    job: RenderJob,
    signal: AbortSignal,
    elapsed: () => number,
    remaining: () => number,
  ): Promise<RenderedPage> {
    const refusal = memoizedRefusal(this.options.guard);

    // Refuse early, before a page slot is spent; the route handler asks again (from the memo).
    const refused = await abortable(refusal(job.url.href), signal);
    if (refused) throw refused;
    const release = await this.options.slots.acquire(job.account ?? "", signal);
    const queueMs = elapsed();
    let session: EgressSession | undefined;
    try {
      session = await this.options.egress.openSession();
      const context = await this.options.browser.newContext({
        ...CONTEXT_OPTIONS,
        proxy: { server: session.url, bypass: PROXY_BYPASS },
      });
      // Closing the context is what interrupts whatever Playwright call is pending, but a close that races a page being
      // opened can hang in Playwright: the render answers at its deadline whatever Playwright does, and waits for the
      // close only so long.
      const closing = once(() => context.close().catch(() => undefined));
      const closeContext = () => Promise.race([closing(), sleep(CLOSE_GRACE_MS, undefined, { ref: false })]);
      // The deadline may have passed while the context was being created: an abort listener added now would never fire.
      if (signal.aborted) void closing();
      else signal.addEventListener("abort", closing, { once: true });
      const timings = { queueMs, navigationMs: 0, settleMs: 0, totalMs: 0 };
      const inHand: InHand = {};
      // The page has until shortly before the deadline to settle; what it sent is answered then, marked incomplete.
      const settleBy = deadlineSignal({
        signal,
        ms: remaining() - Math.min(IN_HAND_RESERVE_MS, job.timeoutMs / 4),
      });
      try {
        const loading = this.#open(context, session, refusal).then((opened) =>
          // Whatever Playwright is waiting for, a tripped render ends now.
          Promise.race([this.#load(opened, job, remaining, timings, inHand), opened.tripped]),
        );
        loading.catch(() => undefined); // it may fail after the render has answered with what was in hand
        const result = await abortable(loading, settleBy.signal).catch(async (error: unknown) => {
          if (signal.aborted || !settleBy.signal.aborted || !inHand.response || job.screenshot) throw error;
          return abortable(readInHand(inHand as Required<InHand>, this.options.maxHtmlBytes), signal);
        });
        return { ...result, path: RenderPath.RENDER_PATH_BROWSER, timings: { ...timings, totalMs: elapsed() } };
      } catch (error) {
        throw toRenderError(error, {
          aborted: signal.aborted,
          browserConnected: this.options.browser.connected,
          timeoutMs: job.timeoutMs,
        });
      } finally {
        settleBy.dispose();
        signal.removeEventListener("abort", closing);
        await closeContext();
      }
    } finally {
      await session?.close();
      release();
    }
  }

  /**
   * A page in a context that skips heavy resources, closes popups and
   * dismisses dialogs. The egress proxy guards every request; redirect hops
   * are also checked here, so a refused hop gets a clear error. The render
   * trips (GuardedPage.tripped) when the proxy refuses or cuts off one of the
   * page's own documents, or when the page navigates more than a render allows.
   */
  async #open(
    context: BrowserContext,
    session: EgressSession,
    refusal: (url: string) => Promise<WinnowError | undefined>,
  ): Promise<GuardedPage> {
    await context.addInitScript(noteScrollListeners);
    await context.addInitScript(noteActivity, SOON_TIMER_MS);
    await context.route("**/*", async (route) => {
      const request = route.request();
      const skip = SKIPPED_RESOURCE_TYPES.has(request.resourceType()) || (await refusedSubresource(request, refusal));
      // Fails only when the context is already closing; the request no longer matters then.
      await (skip ? route.abort("blockedbyclient") : route.continue()).catch(() => undefined);
    });
    const hops: Promise<WinnowError | undefined>[] = [];
    const inFlight = new InFlightRequests();
    let trip!: (error: WinnowError) => void;
    const tripped = new Promise<never>((_, reject) => {
      trip = reject;
    });
    tripped.catch(() => undefined); // it may trip before anyone waits on it
    // Where the page sent itself after it loaded (a script, a refresh, a form), as opposed to the address asked for
    // and its redirects: a refusal there says so, since the caller asked for an allowed page.
    const navigatedByPage = new Set<string>();
    let firstNavigation: Request | undefined;
    const blame = (url: string, problem: WinnowError, hop = false) => {
      if (navigatedByPage.has(withoutFragment(url))) return navigatedAway(url, problem);
      return hop
        ? new WinnowError("url-not-allowed", `the page redirected to a refused URL: ${problem.message}`)
        : problem;
    };
    // The page's own documents' problems end the render, a sub-resource's do not.
    session.onProblem((url, problem) => {
      if (session.isDocument(url)) trip(blame(url, problem));
    });
    // Each redirect hop is a navigation request too.
    const maxNavigations = (this.options.maxRedirects + 1) * (MAX_CLIENT_NAVIGATIONS + 1);
    let navigations = 0;
    context.on("request", (request) => {
      inFlight.started();
      // Only the page's own navigations (redirect hops, and where its scripts send it): a sub-resource's refused hop
      // just fails that sub-resource.
      if (!isMainFrameNavigation(request)) return;
      const url = request.url();
      firstNavigation ??= request;
      if (initialRequest(request) !== firstNavigation) navigatedByPage.add(withoutFragment(url));
      hops.push(refusal(url).then((refused) => refused && blame(url, refused, true)));
      session.addDocument(url);
      const problem = session.problemWith(url);
      if (problem) trip(blame(url, problem));
      if (++navigations > maxNavigations)
        trip(new WinnowError("target-unreachable", "the page kept navigating away from itself"));
    });
    context.on("requestfinished", () => inFlight.ended());
    context.on("requestfailed", () => inFlight.ended());
    const page = await context.newPage();
    await watchDecodedBytes(
      page,
      { maxDocumentBytes: this.options.maxHtmlBytes, maxTotalBytes: this.options.maxDecodedBytes },
      trip,
    );
    // A tab that crashed (V8 past its heap limit, most often) answers nothing more: end the render now.
    page.on("crash", () =>
      trip(
        new WinnowError(
          "page-too-large",
          `the page crashed its browser tab (it may need more than the ${this.options.maxHeapMb} MB of JavaScript heap a page may use)`,
        ),
      ),
    );
    context.on("page", (popup) => void popup.close().catch(() => undefined));
    page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined));
    return {
      page,
      inFlight,
      session,
      tripped,
      async assertRedirectsAllowed() {
        const refused = (await Promise.all(hops)).find((verdict) => verdict !== undefined);
        if (refused) throw refused;
      },
    };
  }

  async #load(
    { page, inFlight, session, assertRedirectsAllowed }: GuardedPage,
    job: RenderJob,
    remaining: () => number,
    timings: { navigationMs: number; settleMs: number },
    inHand: InHand,
  ): Promise<Omit<RenderedPage, "path" | "timings">> {
    if (job.waitFor) await assertValidSelector(page, job.waitFor);

    let mark = performance.now();
    // The response first, so that it is in hand should the page never get to DOM ready.
    let response = await page
      .goto(job.url.href, { waitUntil: "commit", timeout: remaining() })
      .finally(assertRedirectsAllowed); // a refused hop outranks whatever the navigation ran into
    if (!response) throw new WinnowError("target-unreachable", "the navigation produced no response");
    assertRenderable(response, session);
    const contentType = response.headers()["content-type"] ?? "";
    // Read now: Chromium keeps a document's body only until it navigates or its buffer fills with sub-resources.
    const bytes = response.body();
    const sent = bytes.then((body) => decodeDocument(body, charsetLabel(contentType)));
    sent.catch(() => undefined); // read only when the page runs out of time
    Object.assign(inHand, { page, response, contentType, sent });
    await page.waitForLoadState("domcontentloaded", { timeout: remaining() });
    const passedThrough = pageContent(contentType, () => "");
    // A body Chromium no longer holds cannot be sniffed: the page stays as the browser read it.
    const body = passedThrough.isHtml ? await bytes.catch(() => undefined) : undefined;
    if (body) response = await relabelMisreadDocument(page, response, body, remaining());
    session.pageParsed();
    timings.navigationMs = performance.now() - mark;
    if (!passedThrough.isHtml) {
      return {
        finalUrl: page.url(),
        status: response.status(),
        contentType,
        html: await sent,
        title: "",
        screenshot: Buffer.alloc(0),
        incomplete: false,
      };
    }

    mark = performance.now();
    const maxChars = this.options.maxHtmlBytes;
    const { html, title } = await this.#despiteNavigations(page, inFlight, remaining, async () => {
      if (job.waitFor) await waitForSelector(page, job.waitFor, remaining());
      timings.settleMs = performance.now() - mark;
      const read = await readPage(page, maxChars, true);
      if (read !== SCROLL_FIRST) return read;
      await this.#scrollForLazyContent(page, inFlight, remaining);
      timings.settleMs = performance.now() - mark;
      return readPage(page, maxChars, false);
    });
    await assertRedirectsAllowed();
    // A navigation the page started that failed leaves the browser's own error page, which is not the page.
    if (!/^https?:/.test(page.url()))
      throw new WinnowError("target-unreachable", "the page navigated to an address that did not load");
    const screenshot = job.screenshot ? await screenshotOf(page, job.outline ?? [], remaining()) : Buffer.alloc(0);
    return { finalUrl: page.url(), status: response.status(), contentType, html, title, screenshot, incomplete: false };
  }

  /**
   * Reads the page once it is quiet, again after each navigation its own scripts start
   * (a client-side redirect, a reload with other parameters): the document
   * it ends on is the page. Every request of the new document passes the
   * egress guard like the first; a page that keeps navigating is an error.
   */
  async #despiteNavigations<T>(
    page: Page,
    inFlight: InFlightRequests,
    remaining: () => number,
    read: () => Promise<T>,
  ): Promise<T> {
    for (let navigations = 0; ; navigations++) {
      try {
        await pageQuiet(page, inFlight, QUIET_MS, Math.min(SETTLE_CAP_MS, remaining()));
        return await read();
      } catch (error) {
        if (!isNavigationError(error)) throw error;
        if (navigations >= MAX_CLIENT_NAVIGATIONS)
          throw new WinnowError("target-unreachable", "the page kept navigating away from itself");
        await page.waitForLoadState("domcontentloaded", { timeout: remaining() });
      }
    }
  }

  /** Scrolls a bounded number of screens so content loaded on scroll appears. */
  async #scrollForLazyContent(page: Page, inFlight: InFlightRequests, remaining: () => number): Promise<void> {
    for (let screen = 0; screen < MAX_SCROLL_SCREENS && remaining() > SCROLL_PAUSE_MS * 2; screen++) {
      const moved = await page.evaluate(scrollOneScreen);
      if (!moved) return;
      await pageQuiet(page, inFlight, SCROLL_PAUSE_MS, Math.min(SETTLE_CAP_MS, remaining() / 2));
    }
  }
}

/** Tallest screenshot taken, in CSS pixels: the page's top, where a page's main content and its values are. */
const MAX_SCREENSHOT_HEIGHT = 4000;

/** A JPEG of the page's top with the elements the selectors name outlined. */
async function screenshotOf(page: Page, outline: string[], timeout: number): Promise<Buffer> {
  const height = await page.evaluate(outlineElements, outline);
  const width = page.viewportSize()?.width ?? 1280;
  return page.screenshot({
    type: "jpeg",
    quality: 70,
    fullPage: true,
    clip: { x: 0, y: 0, width, height: Math.min(height, MAX_SCREENSHOT_HEIGHT) },
    timeout,
  });
}

/**
 * The page's HTML and title in one round trip (see readDocument); with
 * `scrollFirst`, SCROLL_FIRST instead when scrolling may still add content.
 * Refused when larger than the cap, measured in the page so a huge DOM never crosses over.
 */
async function readPage(page: Page, maxChars: number, scrollFirst: true): Promise<PageRead | typeof SCROLL_FIRST>;
async function readPage(page: Page, maxChars: number, scrollFirst: false): Promise<PageRead>;
async function readPage(page: Page, maxChars: number, scrollFirst: boolean): Promise<PageRead | typeof SCROLL_FIRST> {
  const read = await page.evaluate(readDocument, { maxChars, scrollFirst, mark: SCROLL_LISTENER_MARK });
  if (read === SCROLL_FIRST) return read;
  return sizeChecked(read as { html: string | null; title: string }, maxChars);
}

/** Refused when larger than the cap. */
function sizeChecked(read: { html: string | null; title: string }, maxChars: number): PageRead {
  // A UTF-8 byte count is never smaller than the UTF-16 length.
  if (read.html === null || Buffer.byteLength(read.html) > maxChars) {
    throw new WinnowError("page-too-large", `the page is larger than ${maxChars} bytes`);
  }
  return { html: read.html, title: read.title };
}

interface PageRead {
  html: string;
  title: string;
}

/** What a render has once its page's response arrived (and passed as renderable). */
interface InHand {
  page?: Page;
  response?: Response;
  contentType?: string;
  /** The document as the target sent it. */
  sent?: Promise<string>;
}

/**
 * The page as it is when its time runs out: the DOM so far once the document is parsed and the page answers, else
 * the document as the target sent it (complete once it has arrived, whatever its scripts and sub-resources do).
 */
async function readInHand(
  { page, response, contentType, sent }: Required<InHand>,
  maxChars: number,
): Promise<Omit<RenderedPage, "path" | "timings">> {
  const answer = { status: response.status(), contentType, screenshot: Buffer.alloc(0), incomplete: true };
  const dom = await Promise.race([
    page.evaluate(readDocument, { maxChars, scrollFirst: false, mark: SCROLL_LISTENER_MARK, parsedOnly: true }),
    sleep(IN_HAND_DOM_READ_MS, undefined, { ref: false }),
  ]).catch(() => undefined); // a page navigating or closing: the document as sent answers
  if (dom && dom !== STILL_PARSING && dom !== SCROLL_FIRST && /^https?:/.test(page.url())) {
    return { ...answer, finalUrl: page.url(), ...sizeChecked(dom, maxChars) };
  }
  const html = await sent.catch((error: unknown) => {
    throw new WinnowError("target-timeout", "the page did not settle in time, and its HTML could not be read", {
      cause: error,
    });
  });
  const title = pageContent(contentType, () => "").isHtml ? inspectStaticPage(html).title : "";
  return { ...answer, finalUrl: response.url(), ...sizeChecked({ html, title }, maxChars) };
}

interface GuardedPage {
  page: Page;
  inFlight: InFlightRequests;
  session: EgressSession;
  /** Rejects with the problem that ends the render at once. */
  tripped: Promise<never>;
  /** Throws "url-not-allowed" when any redirect seen so far led somewhere the guard refuses. */
  assertRedirectsAllowed(): Promise<void>;
}

/**
 * A sub-resource the guard refuses (or whose host does not resolve) fails here, at once and with one verdict per host
 * per render, instead of a trip through the proxy for each request: the parser waits on a page's scripts and
 * stylesheets, so each slow refusal delays DOM ready. The page's own documents still go to the proxy, whose verdicts
 * end the render with the right problem.
 */
async function refusedSubresource(
  request: Request,
  refusal: (url: string) => Promise<WinnowError | undefined>,
): Promise<boolean> {
  if (request.isNavigationRequest() || !/^https?:/i.test(request.url())) return false;
  return (await refusal(request.url()).catch(() => undefined)) !== undefined;
}

/** The request a chain of redirects began with. */
function initialRequest(request: Request): Request {
  let first = request;
  for (let from = first.redirectedFrom(); from; from = from.redirectedFrom()) first = from;
  return first;
}

/** The address asked for was allowed and loaded; the page then sent itself somewhere refused. */
function navigatedAway(url: string, refused: WinnowError): WinnowError {
  return new WinnowError(
    "url-not-allowed",
    `the page loaded, then navigated itself (by script, refresh or form) to ${url}, which is refused: ${refused.message}`,
  );
}

function isMainFrameNavigation(request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame().parentFrame() === null;
  } catch {
    return false; // service worker requests have no frame
  }
}

/** wait_for: until an element matches the selector, within the render's time. */
async function waitForSelector(page: Page, selector: string, timeout: number): Promise<void> {
  await page.waitForFunction(selectorPresent, selector, { timeout, polling: 100 }).catch((error: unknown) => {
    if (!(error instanceof errors.TimeoutError)) throw error;
    throw new WinnowError("target-timeout", `"${selector}" did not appear on the page in time`);
  });
}

/** Checked on the blank page before navigating, so a bad selector costs no page load. */
async function assertValidSelector(page: Page, selector: string): Promise<void> {
  const valid = await page.evaluate(selectorParses, selector);
  if (!valid) throw new WinnowError("invalid-request", `wait_for is not a valid CSS selector: ${selector}`);
}

/** Refusals by the egress proxy (which answers in the target's place, and tells the session why) and error statuses. */
function assertRenderable(response: Response, session: EgressSession): void {
  const refused = session.problemWith(response.url());
  if (refused) throw refused;
  const status = response.status();
  if (status >= 400) {
    throw new WinnowError("target-http-error", `the target answered HTTP ${status}`, { targetStatus: status });
  }
}

/** Playwright's errors for a document replaced under a call: the page navigated itself. */
function isNavigationError(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Execution context was destroyed|because the page is navigating|frame was detached/i.test(error.message)
  );
}

/** The first call's promise, for every call. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

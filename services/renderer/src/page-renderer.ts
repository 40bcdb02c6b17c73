import { performance } from "node:perf_hooks";
import { deadlineSignal } from "@winnow/platform";
import { RenderPath, type RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { RenderJob } from "./render-request.js";
import type { StaticFetcher } from "./static/static-fetch.js";
import { inspectStaticPage } from "./static/static-page.js";

/** A page as either path renders it; the service signs it (renderer-service.ts). */
export type RenderedPage = Omit<RenderResponse, "signature">;

/** Renders in Chromium: the BrowserRenderer, or the refusal given when the renderer has no browser. */
export interface BrowserPath {
  render(job: RenderJob): Promise<RenderedPage>;
}

/**
 * Picks the path for a render: "static" fetches without a browser, "browser"
 * always uses Chromium, and "auto" fetches statically first and goes to the
 * browser only when the page needs JavaScript to show its content. Both paths
 * share the job's one deadline.
 */
export class PageRenderer {
  constructor(
    private readonly staticFetcher: StaticFetcher,
    private readonly browser: BrowserPath,
  ) {}

  async render(job: RenderJob): Promise<RenderedPage> {
    // A wait_for selector is about the rendered DOM, and a screenshot is of it; only a browser can honour them.
    if (job.mode === "browser" || job.waitFor || job.screenshot) return this.browser.render(job);
    const started = performance.now();
    const deadline = deadlineSignal({ signal: job.signal, ms: job.timeoutMs });
    const page = await this.staticFetcher.fetch(job.url, deadline.signal).finally(deadline.dispose);
    const shape = page.isHtml ? inspectStaticPage(page.html) : { needsBrowser: false, title: "" };
    const staticMs = performance.now() - started;
    if (job.mode === "auto" && shape.needsBrowser) {
      return this.browser.render({ ...job, timeoutMs: Math.max(1, Math.floor(job.timeoutMs - staticMs)) });
    }
    return {
      finalUrl: page.finalUrl,
      status: page.status,
      contentType: page.contentType,
      html: page.html,
      title: shape.title,
      path: RenderPath.RENDER_PATH_STATIC,
      screenshot: Buffer.alloc(0),
      incomplete: false,
      timings: { queueMs: 0, navigationMs: staticMs, settleMs: 0, totalMs: staticMs },
    };
  }
}

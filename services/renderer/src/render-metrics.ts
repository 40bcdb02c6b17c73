/** The renderer's metrics: renders by path, and the browser's pages, queue and availability, read when scraped. */
import { meter } from "@winnow/platform";
import { RenderPath } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { PageSlots } from "./browser/page-slots.js";

const renders = meter.createCounter("winnow.renders", {
  description: "Pages rendered, by path: static (no browser) or browser",
});

export function countRender(path: RenderPath): void {
  renders.add(1, { "winnow.render.path": path === RenderPath.RENDER_PATH_BROWSER ? "browser" : "static" });
}

/** Gauges of the browser pool; nothing is recorded per render. */
export function observeBrowserPool(slots: PageSlots, maxPages: number, browserUp: () => boolean): void {
  meter
    .createObservableGauge("winnow.browser.pages.active", { description: "Browser pages rendering now" })
    .addCallback((result) => result.observe(slots.active));
  meter
    .createObservableGauge("winnow.browser.pages.limit", {
      description: "Browser pages allowed at once (RENDER_MAX_PAGES)",
    })
    .addCallback((result) => result.observe(maxPages));
  meter
    .createObservableGauge("winnow.browser.queue.length", { description: "Renders waiting for a browser page" })
    .addCallback((result) => result.observe(slots.queued));
  meter
    .createObservableGauge("winnow.browser.up", {
      description: "1 while the browser is connected, 0 while it (re)starts or when there is none",
    })
    .addCallback((result) => result.observe(browserUp() ? 1 : 0));
}

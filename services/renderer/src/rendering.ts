import type { Logger } from "@winnow/platform";
import { EgressGuard, type Lookup } from "@winnow/platform";
import { BrowserHost } from "./browser/browser.js";
import { findBrowser, installHint, NO_BROWSER } from "./browser/browser-discovery.js";
import { BrowserRenderer } from "./browser/browser-renderer.js";
import { PageSlots } from "./browser/page-slots.js";
import type { RendererConfig } from "./config.js";
import { EgressProxy } from "./egress/egress-proxy.js";
import { PageRenderer } from "./page-renderer.js";
import { observeBrowserPool } from "./render-metrics.js";
import { StaticFetcher } from "./static/static-fetch.js";

/** A page's resources together (scripts, styles, frames) may bring in a few times the HTML cap. */
const PAGE_BYTES_PER_HTML_BYTE = 4;

/** The renderer's working parts, built from its configuration; the browser is started separately. */
export interface Rendering {
  renderer: PageRenderer;
  /** Undefined when no Chromium was found: the static path serves alone. */
  browser: BrowserHost | undefined;
  slots: PageSlots;
  guard: EgressGuard;
  proxy: EgressProxy;
  close(): Promise<void>;
}

/** `lookup` replaces DNS, for tests that decide what names resolve to. */
export async function createRendering(config: RendererConfig, logger: Logger, lookup?: Lookup): Promise<Rendering> {
  const guard = new EgressGuard(config.WINNOW_EGRESS_ALLOW, lookup);
  const maxBytes = config.RENDER_MAX_HTML_BYTES;
  // Each plain-HTTP response is held to the page cap, as sent and decoded, like the static path's body. A tunnel
  // (HTTPS: one connection, many responses, encrypted) is held to the page's budget as sent; the browser holds each
  // render to the same caps as decoded, whatever the scheme (decoded-bytes.ts).
  const proxy = await EgressProxy.start(guard, logger, {
    maxResponseBytes: maxBytes,
    maxTunnelBytes: maxBytes * PAGE_BYTES_PER_HTML_BYTE,
  });
  const executablePath = findChromium(config, logger);
  const host =
    executablePath === undefined
      ? undefined
      : new BrowserHost({
          executablePath,
          proxyUrl: proxy.url,
          recycleAfterPages: config.RENDER_RECYCLE_AFTER_PAGES,
          recycleAtMemoryBytes: config.RENDER_RECYCLE_AT_MEMORY_MB * 2 ** 20,
          maxHeapMb: config.RENDER_MAX_HEAP_MB,
          logger,
        });
  const slots = new PageSlots(
    config.RENDER_MAX_PAGES,
    config.RENDER_MAX_QUEUE,
    // A lone account still uses all but one page; a neighbour always finds one.
    config.RENDER_MAX_PAGES_PER_ACCOUNT ?? Math.max(1, config.RENDER_MAX_PAGES - 1),
  );
  observeBrowserPool(slots, config.RENDER_MAX_PAGES, () => host?.connected ?? false);
  const staticFetcher = new StaticFetcher({ guard, maxBytes, maxRedirects: config.RENDER_MAX_REDIRECTS });
  const renderer = new PageRenderer(
    staticFetcher,
    host
      ? new BrowserRenderer({
          browser: host,
          guard,
          egress: proxy,
          slots,
          maxHtmlBytes: maxBytes,
          maxDecodedBytes: maxBytes * PAGE_BYTES_PER_HTML_BYTE,
          maxRedirects: config.RENDER_MAX_REDIRECTS,
          maxHeapMb: config.RENDER_MAX_HEAP_MB,
        })
      : NO_BROWSER,
  );
  return {
    renderer,
    browser: host,
    slots,
    guard,
    proxy,
    async close() {
      await host?.close();
      await proxy.close();
      await staticFetcher.close();
    },
  };
}

/**
 * The Chromium to use; without one the renderer still starts (most pages need no browser) and says, once, how to get
 * one.
 */
function findChromium(config: RendererConfig, logger: Logger): string | undefined {
  const { found, configuredMissing } = findBrowser({
    configured: config.CHROMIUM_PATH,
    pathVariable: process.env.PATH,
  });
  const badSetting = configuredMissing ? `CHROMIUM_PATH (${configuredMissing}) names no executable file` : undefined;
  if (found) {
    if (badSetting) logger.warn(`${badSetting}; using ${found.executablePath}`);
    logger.info({ executablePath: found.executablePath, foundBy: found.source }, "browser found");
    return found.executablePath;
  }
  const searched = [
    badSetting,
    "no Chromium installed by Playwright",
    "no chromium, chromium-browser or google-chrome on PATH",
  ]
    .filter(Boolean)
    .join("; ");
  logger.warn(
    `no browser found (${searched}): pages that need JavaScript will answer browser-unavailable; ${installHint()}`,
  );
  return undefined;
}

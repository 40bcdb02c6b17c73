import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import {
  closeServer,
  listen,
  type RenderingWithBrowser,
  renderWith,
  startRendering,
} from "../renderer.test-helpers.js";
import { proxyArg } from "./browser.js";
import { findBrowser } from "./browser-discovery.js";
import { browserMemoryBytes, descendantsRssBytes } from "./process-memory.js";

let site: Awaited<ReturnType<typeof listen>>;
let rendering: RenderingWithBrowser;

beforeAll(async () => {
  site = await listen((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<title>page</title><p>hello</p>"),
  );
  rendering = await startRendering({ WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}` });
});

afterAll(async () => {
  await rendering.close();
  await closeServer(site);
});

describe("browser memory, as recycling measures it", () => {
  it("counts the renderer's own browser, shared pages once, and no other process", async () => {
    await Promise.all(
      [1, 2, 3, 4].map((i) => renderWith(rendering, `http://127.0.0.1:${site.port}/${i}`, { mode: "browser" })),
    );
    expect(browserMemoryBytes(proxyArg(rendering.proxy.url))).toBeGreaterThan(0);
    // Summed RSS counts every shared page once per process; PSS splits them. The two reads of /proc are a moment
    // apart while the browser still closes the renders' pages, so they are compared again until a moment holds still.
    await expect
      .poll(
        () => {
          const rss = descendantsRssBytes(process.pid);
          return browserMemoryBytes(proxyArg(rendering.proxy.url)) < rss;
        },
        { timeout: TEST_TIMEOUT_MS / 4 },
      )
      .toBe(true);

    const executablePath = findBrowser({ pathVariable: process.env.PATH }).found?.executablePath;
    // Another browser of the same process (as in bench:render) is told apart by its command line.
    const other = await chromium.launch({ executablePath, args: ["--no-sandbox", "--user-agent=another-browser"] });
    try {
      expect(browserMemoryBytes("--user-agent=another-browser")).toBeGreaterThan(0);
      expect(browserMemoryBytes("--an-argument-no-browser-has")).toBe(0);
    } finally {
      await other.close();
    }
  });
});

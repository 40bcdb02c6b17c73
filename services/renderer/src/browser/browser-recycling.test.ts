import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import {
  closeServer,
  listen,
  type RenderingWithBrowser,
  renderWith,
  startRendering,
} from "../renderer.test-helpers.js";

let site: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  site = await listen((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<title>page</title><p>hello</p>"),
  );
});

afterAll(async () => {
  await closeServer(site);
});

/**
 * Renders `count` pages in the browser; resolves to how many fresh browsers came up (waiting for one when
 * `expectFresh`).
 */
async function freshBrowsers(env: Record<string, string>, count: number, expectFresh: boolean): Promise<number> {
  let launches = 0;
  const rendering: RenderingWithBrowser = await startRendering({
    WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}`,
    ...env,
  });
  rendering.browser.onReadyChange((ready) => {
    if (ready) launches++;
  });
  try {
    for (let i = 0; i < count; i++) {
      expect((await renderWith(rendering, `http://127.0.0.1:${site.port}/${i}`, { mode: "browser" })).title).toBe(
        "page",
      );
    }
    // Recycling launches the fresh browser in the background; give it time to come up.
    if (expectFresh) await vi.waitFor(() => expect(launches).toBeGreaterThan(0), { timeout: TEST_TIMEOUT_MS / 2 });
    return launches;
  } finally {
    await rendering.close();
  }
}

describe("browser recycling", () => {
  it("replaces the browser after RENDER_RECYCLE_AFTER_PAGES pages, rendering on throughout", async () => {
    expect(await freshBrowsers({ RENDER_RECYCLE_AFTER_PAGES: "2" }, 5, true)).toBeGreaterThanOrEqual(1);
  });

  it("replaces the browser when its memory passes RENDER_RECYCLE_AT_MEMORY_MB", async () => {
    expect(await freshBrowsers({ RENDER_RECYCLE_AT_MEMORY_MB: "1" }, 10, true)).toBeGreaterThanOrEqual(1);
  });

  it("keeps the browser below both limits", async () => {
    expect(await freshBrowsers({}, 3, false)).toBe(0);
  });
});

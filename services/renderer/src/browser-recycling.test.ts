import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Rendering } from "./rendering.js";
import { closeServer, listen, renderWith, startRendering } from "./renderer.test-helpers.js";

let site: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  site = await listen((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<title>page</title><p>hello</p>"));
});

afterAll(async () => {
  await closeServer(site);
});

/** Renders `count` pages in the browser and counts how many browsers came up along the way. */
async function browsersUsed(env: Record<string, string>, count: number): Promise<number> {
  let launches = 0;
  const rendering: Rendering = await startRendering({ WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}`, ...env });
  rendering.browser.onReadyChange((ready) => {
    if (ready) launches++;
  });
  try {
    for (let i = 0; i < count; i++) {
      expect((await renderWith(rendering, `http://127.0.0.1:${site.port}/${i}`, { mode: "browser" })).title).toBe("page");
    }
    return 1 + launches;
  } finally {
    await rendering.close();
  }
}

describe("browser recycling", () => {
  it("replaces the browser after RENDER_RECYCLE_AFTER_PAGES pages, rendering on throughout", async () => {
    expect(await browsersUsed({ RENDER_RECYCLE_AFTER_PAGES: "2" }, 5)).toBeGreaterThanOrEqual(2);
  });

  it("replaces the browser when its memory passes RENDER_RECYCLE_AT_MEMORY_MB", async () => {
    expect(await browsersUsed({ RENDER_RECYCLE_AT_MEMORY_MB: "1" }, 11)).toBeGreaterThanOrEqual(2);
  });

  it("keeps the browser below both limits", async () => {
    expect(await browsersUsed({}, 3)).toBe(1);
  });
});

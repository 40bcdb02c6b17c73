import type http from "node:http";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { RenderPath } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import iconv from "iconv-lite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RenderChoice } from "./render-request.js";
import {
  closeServer,
  listen,
  memoryGrowthDuring,
  renderFailure,
  renderWith,
  startRendering,
} from "./renderer.test-helpers.js";
import type { Rendering } from "./rendering.js";

const MAX_BYTES = 1024 * 1024;
const MODES: RenderChoice[] = ["static", "browser"];
const TEXT = "<p>Enough ordinary text for the page to count as complete without any JavaScript.</p>";

const BOMB_DECODED_BYTES = 100 * 1024 * 1024;
/** 100 MiB of HTML gzipped to a couple of hundred KiB. */
const BOMB = gzipSync(Buffer.alloc(BOMB_DECODED_BYTES, `<div>${TEXT}</div>`), { level: 9 });
/** The first bytes of a gzip stream, then garbage. */
const CORRUPT_GZIP = Buffer.concat([
  gzipSync(`<!doctype html><body>${TEXT}</body>`).subarray(0, 12),
  Buffer.alloc(64, 7),
]);
/** Small, so that a page allocating without end reaches it soon even on a slow machine. */
const MAX_HEAP_MB = 128;
const POPUPS = 500;
const popupsOpened: string[] = [];
/** What a page the browser cannot finish within the deadline may end with: either is clear and in time. */
const TOO_BIG = ["page-too-large", "target-timeout"];

function html(res: http.ServerResponse, body: string | Buffer, contentType = "text/html; charset=utf-8"): void {
  res.writeHead(200, { "content-type": contentType }).end(body);
}

const pages: Record<string, (res: http.ServerResponse) => void> = {
  "/ok": (res) => html(res, `<!doctype html><title>ok</title><body>${TEXT}</body>`),
  "/bomb": (res) => {
    res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(BOMB);
  },
  "/corrupt-gzip": (res) => {
    res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" }).end(CORRUPT_GZIP);
  },
  "/corrupt-br": (res) => {
    res.writeHead(200, { "content-type": "text/html", "content-encoding": "br" }).end(Buffer.alloc(64, 7));
  },
  "/brotli": (res) => {
    const body = brotliCompressSync(`<!doctype html><title>brotli</title><body>${TEXT}</body>`);
    res.writeHead(200, { "content-type": "text/html", "content-encoding": "br" }).end(body);
  },
  // 1 GiB, written as fast as the reader takes it.
  "/endless": (res) => {
    res.writeHead(200, { "content-type": "text/html" });
    const chunk = Buffer.alloc(64 * 1024, `<p>${TEXT}</p>`);
    let left = 1024 ** 3 / chunk.length;
    const write = () => {
      while (left-- > 0 && !res.destroyed) if (!res.write(chunk)) return void res.once("drain", write);
      res.end();
    };
    write();
  },
  "/huge": (res) =>
    html(res, `<!doctype html><title>huge</title><body>${TEXT}${"<div>x</div>".repeat(MAX_BYTES / 8)}</body>`),
  "/drip": (res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.write("<!doctype html><title>drip</title><body>");
    const timer = setInterval(() => res.write("."), 200);
    res.on("close", () => clearInterval(timer));
  },
  "/busy": (res) => html(res, `<!doctype html><title>busy</title><body>${TEXT}<script>for (;;) {}</script></body>`),
  "/huge-dom": (res) =>
    html(
      res,
      `<!doctype html><title>dom</title><body>${TEXT}<script>
        for (let i = 0; i < 200000; i++) { const d = document.createElement("div"); d.textContent = "node " + i; document.body.append(d); }
      </script></body>`,
    ),
  // Keeps everything it allocates: without a heap limit, gigabytes within the render's time.
  "/heap-hog": (res) =>
    html(
      res,
      `<!doctype html><title>hog</title><body>${TEXT}<script>
        const keep = []; for (let i = 0; ; i++) keep.push({ i, text: "item " + i, more: [i, i + 1] });
      </script></body>`,
    ),
  "/shift-jis": (res) =>
    html(
      res,
      iconv.encode(`<!doctype html><title>日本語</title><body>${TEXT}<p>こんにちは世界</p></body>`, "shift_jis"),
      "text/html; charset=Shift_JIS",
    ),
  "/cp1251-meta": (res) =>
    html(
      res,
      iconv.encode(
        `<!doctype html><html><head><meta charset="windows-1251"><title>Привет</title></head><body>${TEXT}<p>Привет, мир</p></body></html>`,
        "win1251",
      ),
      "text/html",
    ),
  "/utf16-bom": (res) =>
    html(
      res,
      Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        iconv.encode(`<!doctype html><title>utf16</title><body>${TEXT}<p>Grüße ✓</p></body>`, "utf16le"),
      ]),
      "text/html",
    ),
  "/latin1": (res) =>
    html(
      res,
      iconv.encode(`<!doctype html><title>café</title><body>${TEXT}<p>crème brûlée</p></body>`, "latin1"),
      "text/html; charset=iso-8859-1",
    ),
  "/text": (res) => html(res, "plain words, passed through\n", "text/plain; charset=utf-8"),
  "/json": (res) => html(res, '{"price": 12.5, "name": "Lamp"}', "application/json"),
  "/png": (res) => html(res, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), "image/png"),
  "/binary": (res) => html(res, Buffer.alloc(64, 1), "application/octet-stream"),
  "/lazy": (res) =>
    html(
      res,
      `<!doctype html><title>lazy</title><body>${TEXT}<div style="height:5000px"></div><p id="sentinel">end</p>
       <script>new IntersectionObserver((entries, observer) => { if (entries.some((e) => e.isIntersecting)) {
         const p = document.createElement("p"); p.textContent = "loaded on scroll"; document.body.append(p); observer.disconnect(); } })
         .observe(document.getElementById("sentinel"));</script></body>`,
    ),
  "/shadow": (res) =>
    html(
      res,
      `<!doctype html><title>shadow</title><body>${TEXT}<div id="host"></div><iframe src="/frame"></iframe>
       <script>document.getElementById("host").attachShadow({ mode: "open" }).innerHTML = "<p>inside the shadow root</p>";</script></body>`,
    ),
  "/frame": (res) => html(res, "<!doctype html><title>frame</title><body><p>inside the same-origin frame</p></body>"),
  // A script that navigates while the page is read, as some cache plugins do, and one that never stops.
  "/moves-on-scroll": (res) =>
    html(
      res,
      `<!doctype html><title>first</title><body>${TEXT}<div style="height:5000px"></div>
      <script>addEventListener("scroll", () => { location.href = "/ok"; }, { once: true });</script></body>`,
    ),
  "/moves-forever": (res) =>
    html(
      res,
      `<!doctype html><title>again</title><body>${TEXT}<div style="height:5000px"></div>
      <script>addEventListener("scroll", () => { location.href = "/moves-forever?" + Date.now(); }, { once: true });</script></body>`,
    ),
  "/moves-away": (res) =>
    html(
      res,
      `<!doctype html><title>leaving</title><body>${TEXT}<div style="height:5000px"></div>
      <script>addEventListener("scroll", () => { location.href = "http://10.0.0.1/elsewhere"; }, { once: true });</script></body>`,
    ),
  "/popups": (res) =>
    html(
      res,
      `<!doctype html><title>popups</title><body>${TEXT}<script>
        for (let i = 0; i < ${POPUPS}; i++) window.open("/popup?" + i);
        const a = document.createElement("a"); a.href = "/popup?link"; a.target = "_blank"; a.rel = "noopener"; a.click();
        document.body.dataset.done = "1";</script></body>`,
    ),
  "/popup": (res) => {
    popupsOpened.push("popup");
    html(res, "<!doctype html><title>popup</title>");
  },
  // Navigates itself again as soon as it starts, before it ever finishes loading.
  "/navigates-forever": (res) =>
    html(
      res,
      `<!doctype html><html><head><title>again</title><script>location.replace("/navigates-forever?" + Date.now())</script></head><body>${TEXT}</body></html>`,
    ),
  // A site imitating the egress proxy's old refusal marker.
  "/forged-refusal": (res) =>
    res
      .writeHead(200, { "content-type": "text/html", "x-winnow-egress-refused": "forged%20by%20the%20site" })
      .end(`<!doctype html><title>not refused</title><body>${TEXT}</body>`),
  "/forged-refusal-403": (res) =>
    res
      .writeHead(403, { "content-type": "text/plain", "x-winnow-egress-refused": "forged%20by%20the%20site" })
      .end("forged by the site"),
  "/dialogs": (res) =>
    html(
      res,
      `<!doctype html><title>dialogs</title><body>${TEXT}<script>alert("hi"); confirm("sure?"); window.open("/ok"); document.body.dataset.done = "1";</script></body>`,
    ),
};

let site: http.Server & { port: number };
let base: string;
let rendering: Rendering;

beforeAll(async () => {
  site = await listen((req, res) => {
    const page = pages[(req.url ?? "/").split("?")[0]!];
    if (page) page(res);
    else res.writeHead(404).end();
  });
  base = `http://127.0.0.1:${site.port}`;
  rendering = await startRendering({
    WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}`,
    RENDER_MAX_HTML_BYTES: String(MAX_BYTES),
    RENDER_MAX_HEAP_MB: String(MAX_HEAP_MB),
  });
});

afterAll(async () => {
  await rendering?.close();
  if (site) await closeServer(site);
});

/** After a hostile page, the next ordinary render must work as if nothing happened. */
async function expectUnharmed(mode: RenderChoice): Promise<void> {
  const page = await renderWith(rendering, `${base}/ok`, { mode });
  expect(page.title).toBe("ok");
}

describe.each(MODES)("hostile pages, %s path", (mode) => {
  it.each([
    ["a slow-drip response", "/drip", "target-timeout"],
    ["an image", "/png", "unsupported-content"],
    ["a binary download", "/binary", "unsupported-content"],
  ])("ends %s with a clear error within the deadline", async (_name, path, type) => {
    // The problem type says the render's own deadline ended it (no timing bound: a loaded machine is slow, not wrong).
    const error = await renderFailure(rendering, `${base}${path}`, { mode, timeoutMs: 3000 });
    expect(error.type, error.message).toBe(type);
    await expectUnharmed(mode);
  });

  // With the full default deadline: a page held until then would end as target-timeout instead.
  it.each([
    ["a decompression bomb (100 MiB of HTML as 200 KiB of gzip)", "/bomb", "page-too-large"],
    ["a page over the size cap", "/huge", "page-too-large"],
    ["a 1 GiB body", "/endless", "page-too-large"],
    ["a corrupt gzip body", "/corrupt-gzip", "target-unreachable"],
    ["a corrupt brotli body", "/corrupt-br", "target-unreachable"],
  ])("ends %s at once with its own problem", async (_name, path, type) => {
    const error = await renderFailure(rendering, `${base}${path}`, { mode });
    expect(error.type, error.message).toBe(type);
    if (path.startsWith("/corrupt")) expect(error.message).toMatch(/not valid (gzip|br)/);
    await expectUnharmed(mode);
  });

  it("decodes a brotli body", async () => {
    expect((await renderWith(rendering, `${base}/brotli`, { mode })).title).toBe("brotli");
  });

  it("takes no refusal from a site that answers with the proxy's old refusal header", async () => {
    expect((await renderWith(rendering, `${base}/forged-refusal`, { mode })).title).toBe("not refused");
    const error = await renderFailure(rendering, `${base}/forged-refusal-403`, { mode });
    expect(error).toMatchObject({ type: "target-http-error", message: "the target answered HTTP 403" });
  });

  it.each([
    ["/shift-jis", "こんにちは世界", "日本語"],
    ["/cp1251-meta", "Привет, мир", "Привет"],
    ["/utf16-bom", "Grüße ✓", "utf16"],
    ["/latin1", "crème brûlée", "café"],
  ])("decodes %s", async (path, text, title) => {
    const page = await renderWith(rendering, `${base}${path}`, { mode });
    expect(page.html).toContain(text);
    expect(page.title).toBe(title);
  });

  it.each([
    ["/text", "text/plain; charset=utf-8", "plain words, passed through"],
    ["/json", "application/json", '{"price": 12.5, "name": "Lamp"}'],
  ])("passes %s through", async (path, contentType, body) => {
    const page = await renderWith(rendering, `${base}${path}`, { mode });
    expect(page).toMatchObject({ contentType, status: 200 });
    expect(page.html.trim()).toBe(body.trim());
  });
});

describe("hostile pages, browser only", () => {
  it("ends a JavaScript busy loop with target-timeout", async () => {
    const error = await renderFailure(rendering, `${base}/busy`, { mode: "browser", timeoutMs: 4000 });
    expect(error.type, error.message).toBe("target-timeout");
    await expectUnharmed("browser");
  });

  it("ends a huge DOM built by script as too large, or answers the page as sent, marked incomplete", async () => {
    // Which comes first depends on the machine: the tab's crash (page-too-large), the deadline while the script
    // still runs (target-timeout), or the deadline once the HTML is in hand: the page as it was, marked incomplete.
    const outcome = await renderWith(rendering, `${base}/huge-dom`, { mode: "browser", timeoutMs: 4000 }).then(
      (page) => ({ incomplete: page.incomplete, type: undefined }),
      (error: Error & { type?: string }) => ({ incomplete: false, type: error.type }),
    );
    if (outcome.type === undefined) expect(outcome.incomplete).toBe(true);
    else expect(TOO_BIG).toContain(outcome.type);
    await expectUnharmed("browser");
  });

  it("ends a page whose script allocates without end as page-too-large, and renders the next page", async () => {
    // The deadline only bounds a machine too slow to allocate 128 MB; without the limit the page ends target-timeout.
    const error = await renderFailure(rendering, `${base}/heap-hog`, { mode: "browser", timeoutMs: 45_000 });
    expect(error.type, error.message).toBe("page-too-large");
    expect(error.message).toContain(`${MAX_HEAP_MB} MB of JavaScript heap`);
    await expectUnharmed("browser");
  });

  it("scrolls so content loaded on scroll is in the DOM", async () => {
    const page = await renderWith(rendering, `${base}/lazy`, { mode: "browser" });
    expect(page.html).toContain("loaded on scroll");
  });

  it("reads the page a script navigates to while it is read, and gives up on one that never stops", async () => {
    const page = await renderWith(rendering, `${base}/moves-on-scroll`, { mode: "browser" });
    expect(page.title).toBe("ok");
    expect(page.finalUrl).toBe(`${base}/ok`);
    const error = await renderFailure(rendering, `${base}/moves-forever`, { mode: "browser", timeoutMs: 10_000 });
    expect(error.type).toBe("target-unreachable");
    // Where a script sends the page passes the egress guard like a redirect does; the browser's error page is never
    // returned.
    // The address asked for was allowed: the refusal says the page itself went elsewhere.
    const away = await renderFailure(rendering, `${base}/moves-away`, { mode: "browser" });
    expect(away.type).toBe("url-not-allowed");
    expect(away.message).toMatch(
      /^the page loaded, then navigated itself \(by script, refresh or form\) to http:\/\/10\.0\.0\.1\/elsewhere, which is refused: 10\.0\.0\.1 is not a public address/,
    );
    await expectUnharmed("browser");
  });

  it("includes open shadow roots and same-origin iframes", async () => {
    const page = await renderWith(rendering, `${base}/shadow`, { mode: "browser" });
    expect(page.html).toContain("<p>inside the shadow root</p>");
    expect(page.html).toContain("<p>inside the same-origin frame</p>");
  });

  it("dismisses dialogs and closes popups", async () => {
    const page = await renderWith(rendering, `${base}/dialogs`, { mode: "browser", waitFor: "body[data-done]" });
    expect(page.title).toBe("dialogs");
    expect(rendering.browser.connected).toBe(true);
  });

  it(`opens none of ${POPUPS} popups, and renders the page that asked for them`, async () => {
    popupsOpened.length = 0;
    const page = await renderWith(rendering, `${base}/popups`, { mode: "browser", waitFor: "body[data-done]" });
    expect(page.title).toBe("popups");
    expect(popupsOpened).toEqual([]);
  });

  it("gives up on a page that navigates itself before it ever loads", async () => {
    const error = await renderFailure(rendering, `${base}/navigates-forever`, { mode: "browser" });
    expect(error).toMatchObject({ type: "target-unreachable", message: "the page kept navigating away from itself" });
    await expectUnharmed("browser");
  });

  it("keeps a decompression bomb out of the browser's memory", async () => {
    const growth = await memoryGrowthDuring(rendering, async () => {
      expect((await renderFailure(rendering, `${base}/bomb`, { mode: "browser" })).type).toBe("page-too-large");
    });
    // Let into the browser, the bomb's 100 MiB of HTML took about 1.5 GiB more as a DOM; refused at the proxy, what
    // remains is a fresh tab's own memory (about 200 MiB, with the noise of other tests' browsers).
    expect(growth).toBeLessThan(5 * BOMB_DECODED_BYTES);
  });

  it("reports the path taken in auto mode", async () => {
    expect((await renderWith(rendering, `${base}/ok`)).path).toBe(RenderPath.RENDER_PATH_STATIC);
  });
});

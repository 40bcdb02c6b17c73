import type http from "node:http";
import { RenderPath } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServer, listen, renderFailure, renderWith, startRendering } from "./renderer.test-helpers.js";
import type { Rendering } from "./rendering.js";

const RECIPE = `<script type="application/ld+json">{"@type":"Recipe","name":"Lemon Tart"}</script>`;

let site: http.Server & { port: number };
/** Accepts requests and never answers them: a third-party script that never comes. */
let hanging: http.Server & { port: number };
/** An API on another host that answers after longer than a third party may stay silent while the page is parsed. */
let slowApi: http.Server & { port: number };
const SLOW_API_MS = 3500;
let base: string;
let rendering: Rendering;

beforeAll(async () => {
  hanging = await listen(() => undefined);
  slowApi = await listen((_req, res) => {
    setTimeout(
      () => res.writeHead(200, { "access-control-allow-origin": "*" }).end("read from the slow API"),
      SLOW_API_MS,
    );
  });
  const pages: Record<string, (res: http.ServerResponse) => void> = {
    // The parser stops at the script and waits for it: the page never gets to DOM ready.
    "/stalled": (res) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><html><head><title>Lemon Tart</title>${RECIPE}<script src="http://127.0.0.1:${hanging.port}/tracker.js"></script></head><body><h1>Lemon Tart</h1><p>after the script</p></body></html>`,
        ),
    // Its scripts come from another server that accepts and never answers, over HTTP and through an HTTPS tunnel.
    "/third-party-hangs": (res) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><html><head><title>Lemon Tart</title><script src="http://127.0.0.1:${hanging.port}/ads.js"></script><script src="https://127.0.0.1:${hanging.port}/tag.js"></script></head><body><h1>Lemon Tart</h1><p id="built"></p><script>document.getElementById("built").textContent = "built after the scripts";</script></body></html>`,
        ),
    // Reads its content, once parsed, from an API on another host that takes its time.
    "/slow-api": (res) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><html><head><title>Lemon Tart</title></head><body><p id="content"></p><script>fetch("http://127.0.0.1:${slowApi.port}/recipe").then((r) => r.text()).then((text) => { const p = document.getElementById("content"); p.textContent = text; p.className = "loaded"; });</script></body></html>`,
        ),
    // Settles in time: built by its script, nothing held.
    "/settles": (res) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<!doctype html><title>settles</title><body><p id="done"></p><script>document.getElementById("done").textContent = "built by script";</script></body>`,
        ),
    // Headers, and never the HTML.
    "/no-html": (res) => res.writeHead(200, { "content-type": "text/html" }).flushHeaders(),
  };
  site = await listen((req, res) => {
    const page = pages[req.url ?? "/"];
    if (page) page(res);
    else res.writeHead(404).end();
  });
  base = `http://127.0.0.1:${site.port}`;
  rendering = await startRendering({
    WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port},127.0.0.1:${hanging.port},127.0.0.1:${slowApi.port}`,
  });
});

afterAll(async () => {
  await rendering?.close();
  for (const server of [site, hanging, slowApi]) if (server) await closeServer(server);
});

describe("a browser render that runs out of time", () => {
  it("answers the document as sent, marked incomplete, when a script that never arrives holds the parser", async () => {
    const page = await renderWith(rendering, `${base}/stalled`, { mode: "browser", timeoutMs: 3000 });
    expect(page).toMatchObject({
      incomplete: true,
      status: 200,
      title: "Lemon Tart",
      path: RenderPath.RENDER_PATH_BROWSER,
    });
    // What the site sent after the stalled script is there too: the document as received, not the DOM so far.
    expect(page.html).toContain('"name":"Lemon Tart"');
    expect(page.html).toContain("<p>after the script</p>");
    expect(page.finalUrl).toBe(`${base}/stalled`);
  });

  it("is not marked when the page settled in time", async () => {
    const page = await renderWith(rendering, `${base}/settles`, { mode: "browser", timeoutMs: 10_000 });
    expect(page.incomplete).toBe(false);
    expect(page.html).toContain("built by script");
  });

  it("answers target-timeout when the page's HTML never arrived", async () => {
    const error = await renderFailure(rendering, `${base}/no-html`, { mode: "browser", timeoutMs: 3000 });
    expect(error.type).toBe("target-timeout");
  });
});

describe("a third-party server slow to answer", () => {
  it("is cut off when it holds the parser, so the page loads without its scripts and answers complete", async () => {
    const page = await renderWith(rendering, `${base}/third-party-hangs`, { mode: "browser", timeoutMs: 15_000 });
    expect(page.incomplete).toBe(false);
    expect(page.html).toContain('<p id="built">built after the scripts</p>');
  });

  it("is given the render's time once the page is parsed (an API its scripts read the content from)", async () => {
    const page = await renderWith(rendering, `${base}/slow-api`, { mode: "browser", waitFor: "#content.loaded" });
    expect(page.html).toContain("read from the slow API");
  });
});

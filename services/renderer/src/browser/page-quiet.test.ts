import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServer, listen, renderWith, startRendering } from "../renderer.test-helpers.js";
import type { Rendering } from "../rendering.js";

const html = (body: string) => `<!doctype html><html><head><title>quiet</title></head><body>${body}</body></html>`;
const PAGES: Record<string, string> = {
  // Fills itself in 300 ms after load, from a timer: no request, no change to the DOM until then.
  "/later": html(`<main id="recipe"></main><script>
    addEventListener("load", () => setTimeout(() => {
      document.getElementById("recipe").innerHTML = "<h1>Lemon Tart</h1><p>3 lemons, 200 g sugar</p>";
    }, 300));</script>`),
  // A timer, then a request, then another timer before the content arrives: each pause shorter than a second.
  "/chained": html(`<main id="recipe"></main><script>
    addEventListener("load", () => setTimeout(async () => {
      const steps = await (await fetch("/steps")).text();
      setTimeout(() => { document.getElementById("recipe").innerHTML = steps; }, 600);
    }, 600));</script>`),
  "/steps": "<ol><li>Whisk</li><li>Bake</li></ol>",
  // Never stops changing its DOM.
  "/forever": html(`<h1>Ticker</h1><ol id="ticks"></ol><script>
    setInterval(() => document.getElementById("ticks").insertAdjacentHTML("beforeend", "<li>tick</li>"), 50);</script>`),
  // Timers keep working as the page expects: arguments passed, `this` the window, a cleared timer never runs.
  "/timers": html(`<p id="out"></p><script>
    const say = (text) => document.getElementById("out").insertAdjacentText("beforeend", text);
    clearTimeout(setTimeout(() => say("cancelled "), 100));
    setTimeout(function (a, b) { say(a + b + (this === window ? " on window" : "")); }, 200, "arguments ", "passed");
  </script>`),
};

let site: http.Server & { port: number };
let rendering: Rendering;
const url = (path: string) => `http://127.0.0.1:${site.port}${path}`;

beforeAll(async () => {
  site = await listen((req, res) => {
    const page = PAGES[req.url ?? ""];
    if (page) res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
    else res.writeHead(404).end();
  });
  rendering = await startRendering({ WINNOW_EGRESS_ALLOW: `127.0.0.1:${site.port}` });
});

afterAll(async () => {
  await rendering?.close();
  if (site) await closeServer(site);
});

describe("the browser settles when the page is quiet", () => {
  it("reads content a page adds 300 ms after load, without wait_for", async () => {
    const page = await renderWith(rendering, url("/later"), { mode: "browser" });
    expect(page.incomplete).toBe(false);
    expect(page.html).toContain("<h1>Lemon Tart</h1><p>3 lemons, 200 g sugar</p>");
  });

  it("waits through a chain of timers and requests", async () => {
    const page = await renderWith(rendering, url("/chained"), { mode: "browser" });
    expect(page.html).toContain("<ol><li>Whisk</li><li>Bake</li></ol>");
  });

  it("answers a page that changes forever with what it shows, before the render's deadline", async () => {
    const page = await renderWith(rendering, url("/forever"), { mode: "browser", timeoutMs: 10_000 });
    expect(page.incomplete).toBe(false);
    expect(page.html).toContain("<li>tick</li>");
  });

  it("leaves the page's timers working as it wrote them", async () => {
    const page = await renderWith(rendering, url("/timers"), { mode: "browser" });
    expect(page.html).toContain('<p id="out">arguments passed on window</p>');
  });
});

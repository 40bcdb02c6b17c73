import http from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import {
  checkHealth,
  createClient,
  createLogger,
  loadConfig,
  pageSignatureHolds,
  promiseClient,
  type RendererClient,
  type RunningGrpcServer,
  startGrpcServer,
  WinnowError,
} from "@winnow/platform";
import {
  RendererServiceClient,
  RenderMode,
  RenderPath,
  type RenderRequest,
  type RenderResponse,
} from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { callStatus, TEST_PAGE_SIGNING_KEY, TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import { TEST_TIMEOUT_MS } from "../../../test/support/test-timeout.js";
import type { BrowserHost } from "./browser/browser.js";
import type { PageSlots } from "./browser/page-slots.js";
import { rendererConfigShape } from "./config.js";
import { RENDERER_SERVICE_NAME, rendererServiceBinding } from "./renderer-service.js";
import { createRendering, type Rendering } from "./rendering.js";

const MAX_HTML_BYTES = 64 * 1024;

/** Hits on paths the guard must keep the browser away from. */
const secretHits: string[] = [];

/** Responses to /held, answered only once heldPages.open is set (a slow page, held as long as the test likes). */
const heldPages = { open: false, waiting: [] as http.ServerResponse[] };
const HELD_PAGE = "<!doctype html><html><head><title>Held</title></head><body>held</body></html>";

/** Fixture pages; `port` is the fixture server's own, for pages that point back at it under other names. */
function fixtures(port: number): Record<string, (res: http.ServerResponse) => void> {
  const html =
    (body: string, status = 200) =>
    (res: http.ServerResponse) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html><head>${body}</body></html>`);
    };
  return {
    "/static": html("<title>Static fixture</title></head><body><h1>Hello from a static page</h1>"),
    "/script": html(
      `<title>Script fixture</title></head><body><div id="app"></div>
       <script>addEventListener("load", () => { document.getElementById("app").textContent = "written by JavaScript"; });</script>`,
    ),
    "/delayed": html(
      `<title>Delayed fixture</title></head><body>
       <script>setTimeout(() => { const p = document.createElement("p"); p.className = "late"; p.textContent = "arrived late"; document.body.append(p); }, 1200);</script>`,
    ),
    "/sneaky": html(
      `<title>Sneaky fixture</title></head><body><p id="out">pending</p>
       <script>fetch("http://localhost:${port}/secret", { mode: "no-cors" }).then(() => "reached", () => "blocked")
         .then((r) => { const out = document.getElementById("out"); out.textContent = r; out.className = "done"; });</script>`,
    ),
    "/missing": html("<title>Not here</title></head><body>no such page", 404),
    "/big": html(`<title>Big</title></head><body>${"<p>filler text</p>".repeat(MAX_HTML_BYTES / 10)}`),
    "/report.pdf": (res) => {
      res.writeHead(200, { "content-type": "application/pdf" });
      res.end("%PDF-1.4\n%âãÏÓ\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n");
    },
    "/redirect-out": (res) => {
      res.writeHead(302, { location: `http://127.0.0.2:${port}/static` });
      res.end();
    },
    "/hang": () => {
      // Never answers: the render must give up on its own.
    },
    "/held": (res) => {
      if (heldPages.open) res.end(HELD_PAGE);
      else heldPages.waiting.push(res);
    },
    "/secret": (res) => {
      secretHits.push("/secret");
      res.end("secret");
    },
  };
}

let site: http.Server;
let base: string;
let closedPort: number;
let server: RunningGrpcServer;
let browser: BrowserHost;
let slots: PageSlots;
let rendering: Rendering;
let client: RendererClient;
let address: string;
let healthBeforeBrowser: string;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const route = fixtures(req.socket.localPort ?? 0)[req.url ?? "/"];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));

  // Only 127.0.0.1 is let through, so other loopback addresses show the guard at work.
  const config = loadConfig(rendererConfigShape, {
    WINNOW_EGRESS_ALLOW: "127.0.0.1/32",
    RENDER_MAX_HTML_BYTES: String(MAX_HTML_BYTES),
    LOG_LEVEL: "silent",
    WINNOW_SERVICE_TOKEN: TEST_TOKENS.service,
  });
  const logger = createLogger("renderer-test", config.LOG_LEVEL);
  rendering = await createRendering(config, logger);
  if (!rendering.browser) throw new Error("these tests need a Chromium");
  ({ browser, slots } = rendering);
  const renderer = rendering.renderer;
  server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    callers: { service: TEST_TOKENS.service },
    services: [
      rendererServiceBinding({
        logger,
        renderer,
        renderTimeoutMs: config.RENDER_TIMEOUT_MS,
        pageSigningKey: TEST_PAGE_SIGNING_KEY,
      }),
    ],
  });
  address = `127.0.0.1:${server.port}`;
  client = promiseClient(createClient(RendererServiceClient, address, TEST_TOKENS.service));
  browser.onReadyChange((ready) => server.setReady(ready));
  healthBeforeBrowser = await checkHealth(address, RENDERER_SERVICE_NAME);
  await browser.start();
});

afterAll(async () => {
  client.grpc.close();
  await server.shutdown(1000);
  await rendering.close();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

function render(
  url: string,
  options: Partial<NonNullable<RenderRequest["options"]>> = {},
  deadline = new Date(Date.now() + TEST_TIMEOUT_MS / 2),
  accountId = "",
): Promise<RenderResponse> {
  const request: RenderRequest = {
    url,
    accountId,
    options: {
      mode: RenderMode.RENDER_MODE_UNSPECIFIED,
      timeoutMs: 0,
      waitFor: "",
      screenshot: false,
      outline: [],
      ...options,
    },
  };
  return client.render(request, { deadline });
}

async function failure(
  url: string,
  options: Partial<NonNullable<RenderRequest["options"]>> = {},
): Promise<WinnowError> {
  const error = await render(url, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WinnowError);
  return error as WinnowError;
}

describe("health", () => {
  it("is NOT_SERVING until the browser is up, SERVING after", async () => {
    expect(healthBeforeBrowser).toBe("NOT_SERVING");
    expect(await checkHealth(address, RENDERER_SERVICE_NAME)).toBe("SERVING");
    expect(await checkHealth(address)).toBe("SERVING");
  });
});

describe("caller credentials", () => {
  it("refuses a render without the service token, or with another role's, as UNAUTHENTICATED", async () => {
    const request: RenderRequest = { url: `${base}/static` };
    for (const token of [undefined, TEST_TOKENS.gateway, TEST_TOKENS.admin, "x".repeat(40)]) {
      const status = await callStatus(RendererServiceClient, address, token, (client, done) =>
        client.render(request, done),
      );
      expect(status.code, String(token)).toBe(grpc.status.UNAUTHENTICATED);
      expect(status.details).toMatch(/WINNOW_SERVICE_TOKEN/);
    }
  });
});

describe("Render", () => {
  it("returns the HTML, title, status and timings of a page rendered in the browser", async () => {
    const response = await render(`${base}/static`, { mode: RenderMode.RENDER_MODE_BROWSER });
    expect(response).toMatchObject({
      finalUrl: `${base}/static`,
      status: 200,
      contentType: "text/html; charset=utf-8",
      title: "Static fixture",
      path: RenderPath.RENDER_PATH_BROWSER,
    });
    expect(response.html).toContain("<h1>Hello from a static page</h1>");
    expect(response.timings?.totalMs).toBeGreaterThan(0);
    expect(response.timings?.totalMs).toBeGreaterThanOrEqual(response.timings?.navigationMs ?? Infinity);
  });

  it("fetches a complete page statically in auto mode", async () => {
    const response = await render(`${base}/static`);
    expect(response).toMatchObject({ status: 200, title: "Static fixture", path: RenderPath.RENDER_PATH_STATIC });
    expect(response.html).toContain("<h1>Hello from a static page</h1>");
  });

  it("signs what it rendered, its final URL and HTML, so the page may teach the extractor's templates", async () => {
    for (const mode of [RenderMode.RENDER_MODE_STATIC, RenderMode.RENDER_MODE_BROWSER]) {
      const { finalUrl, html, signature } = await render(`${base}/static`, { mode });
      expect(pageSignatureHolds(TEST_PAGE_SIGNING_KEY, finalUrl, html, signature)).toBe(true);
      expect(pageSignatureHolds(TEST_PAGE_SIGNING_KEY, finalUrl, `${html} `, signature)).toBe(false);
    }
  });

  it("returns the DOM as JavaScript left it, going to the browser for a script shell in auto mode", async () => {
    const response = await render(`${base}/script`);
    expect(response.path).toBe(RenderPath.RENDER_PATH_BROWSER);
    expect(response.html).toContain('<div id="app">written by JavaScript</div>');
  });

  it("waits for the wait_for selector", async () => {
    const response = await render(`${base}/delayed`, { waitFor: "p.late" });
    expect(response.html).toContain("arrived late");
  });

  it("takes a screenshot in the browser on request, with the named elements outlined", async () => {
    const plain = await render(`${base}/static`, { screenshot: true });
    const outlined = await render(`${base}/static`, { screenshot: true, outline: ["h1", "p[[[", ".none"] });
    expect(outlined.path).toBe(RenderPath.RENDER_PATH_BROWSER);
    // A JPEG, and the outline changed it; selectors that match nothing or do not parse are skipped.
    expect([...outlined.screenshot.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(outlined.screenshot.equals(plain.screenshot)).toBe(false);
    expect((await render(`${base}/static`)).screenshot).toHaveLength(0);
  });

  it("refuses an invalid wait_for selector as invalid-request", async () => {
    expect((await failure(`${base}/static`, { waitFor: "p[[[" })).type).toBe("invalid-request");
  });

  it("answers target-http-error with the target's status", async () => {
    const error = await failure(`${base}/missing`);
    expect(error).toMatchObject({ type: "target-http-error", targetStatus: 404 });
  });

  it.each([RenderMode.RENDER_MODE_STATIC, RenderMode.RENDER_MODE_BROWSER])(
    "answers unsupported-content for a PDF (mode %i)",
    async (mode) => {
      expect((await failure(`${base}/report.pdf`, { mode })).type).toBe("unsupported-content");
    },
  );

  it.each([RenderMode.RENDER_MODE_STATIC, RenderMode.RENDER_MODE_BROWSER])(
    "answers page-too-large above the HTML cap (mode %i)",
    async (mode) => {
      expect((await failure(`${base}/big`, { mode })).type).toBe("page-too-large");
    },
  );

  it("refuses addresses outside the allowlist, and other schemes", async () => {
    const port = new URL(base).port;
    for (const url of [
      `http://127.0.0.2:${port}/static`,
      `http://localhost:${port}/static`,
      "http://169.254.169.254/latest/meta-data/",
      `ftp://127.0.0.1:${port}/`,
    ]) {
      expect((await failure(url)).type, url).toBe("url-not-allowed");
    }
  });

  it.each([RenderMode.RENDER_MODE_STATIC, RenderMode.RENDER_MODE_BROWSER])(
    "refuses a page that redirects to a refused address (mode %i)",
    async (mode) => {
      expect((await failure(`${base}/redirect-out`, { mode })).type).toBe("url-not-allowed");
    },
  );

  it("keeps the page's own requests away from refused hosts", async () => {
    const response = await render(`${base}/sneaky`, { waitFor: "#out.done" });
    // The proxy answers in the target's place (an opaque 403 to no-cors fetch); the target never hears of it.
    expect(response.html).toContain('class="done"');
    expect(secretHits).toEqual([]);
  });

  it("answers target-unreachable for a closed port", async () => {
    expect((await failure(`http://127.0.0.1:${closedPort}/`)).type).toBe("target-unreachable");
  });

  it("answers target-timeout when the page does not load within timeout_ms", async () => {
    expect((await failure(`${base}/hang`, { timeoutMs: 1000 })).type).toBe("target-timeout");
    expect((await failure(`${base}/hang`, { timeoutMs: 1000, mode: RenderMode.RENDER_MODE_BROWSER })).type).toBe(
      "target-timeout",
    );
  });

  it("answers invalid-request for an unparsable URL", async () => {
    expect((await failure("not a url")).type).toBe("invalid-request");
  });
});

describe("browser pages shared between accounts", () => {
  it("keeps a page for a neighbour while one account's slow pages hold all it may take", async () => {
    const browserMode = { mode: RenderMode.RENDER_MODE_BROWSER };
    // RENDER_MAX_PAGES is 4: account a may hold 3; its fourth render waits although a page is free.
    const slow = Array.from({ length: 4 }, () => render(`${base}/held`, browserMode, undefined, "a"));
    await vi.waitFor(() => expect([heldPages.waiting.length, slots.queued]).toEqual([3, 1]), {
      timeout: TEST_TIMEOUT_MS / 2,
    });
    const neighbour = await render(`${base}/static`, browserMode, undefined, "b");
    expect(neighbour.title).toBe("Static fixture");
    // a's pages were still held throughout.
    expect([heldPages.waiting.length, slots.queued]).toEqual([3, 1]);

    heldPages.open = true;
    for (const res of heldPages.waiting.splice(0)) res.end(HELD_PAGE);
    expect((await Promise.all(slow)).map((page) => page.title)).toEqual(["Held", "Held", "Held", "Held"]);
  });
});

// Last: it replaces the shared browser.
describe("when the browser goes away", () => {
  it("relaunches it, reporting NOT_SERVING meanwhile, and renders again", async () => {
    const transitions: boolean[] = [];
    browser.onReadyChange((ready) => transitions.push(ready));
    const context = await browser.newContext({});
    await context.browser()?.close();
    await vi.waitFor(() => expect(transitions).toEqual([false, true]), { timeout: TEST_TIMEOUT_MS / 2 });
    expect(await checkHealth(address, RENDERER_SERVICE_NAME)).toBe("SERVING");
    expect((await render(`${base}/static`)).title).toBe("Static fixture");
  });
});

// Last of all: it stops the server.
describe("on shutdown", () => {
  it("stops serving at once and lets the in-flight render finish", async () => {
    const inFlight = render(`${base}/delayed`, { waitFor: "p.late" });
    await vi.waitFor(() => expect(slots.active).toBe(1));
    const stopped = server.shutdown(20_000);
    expect(await checkHealth(client.grpc, RENDERER_SERVICE_NAME)).not.toBe("SERVING");
    expect((await inFlight).html).toContain("arrived late");
    await stopped;
  });
});

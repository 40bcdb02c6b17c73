/**
 * Renderer benchmark: the static path against the browser path, and the
 * renderer's browser path against a bare Playwright script (new page, goto,
 * content) on another instance of the same Chromium, all in one run on
 * loopback fixture pages, at concurrency 1, 4 and 8. Then a soak: memory of
 * the renderer process and its browser over many browser renders.
 *
 *   npm run bench:render                      # soak of 200 browser renders
 *   SOAK_RENDERS=1000 npm run bench:render    # the 1,000-render soak (slow: minutes)
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createLogger, loadConfig } from "@winnow/platform";
import {
  createRendering,
  descendantsRssBytes,
  findBrowser,
  type RenderChoice,
  rendererConfigShape,
} from "@winnow/renderer";
import { chromium } from "playwright-core";

const treeRssBytes = (pid: number) => descendantsRssBytes(pid, true);

const CONCURRENCIES = [1, 4, 8];
const RENDERS_PER_LEVEL = Number(process.env.RENDERS_PER_LEVEL ?? 64);
const SOAK_RENDERS = Number(process.env.SOAK_RENDERS ?? 200);

/** A product page of realistic size: text, a table, links, inline style, no sub-resources. */
function fixturePage(n: number): string {
  const rows = Array.from({ length: 40 }, (_, i) => `<tr><td>Spec ${i}</td><td>Value ${i * n}</td></tr>`).join("");
  const paragraphs = Array.from(
    { length: 30 },
    (_, i) => `<p>Paragraph ${i} about product ${n}: sturdy, useful and well reviewed by customers.</p>`,
  ).join("");
  return `<!doctype html><html><head><title>Product ${n}</title><style>body{font-family:sans-serif}</style></head>
    <body><h1>Product ${n}</h1><p class="price">$${(n % 100) + 0.99}</p>${paragraphs}<table>${rows}</table>
    <ul>${Array.from({ length: 50 }, (_, i) => `<li><a href="/page/${i}">Related ${i}</a></li>`).join("")}</ul></body></html>`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Result {
  path: string;
  concurrency: number;
  renders: number;
  p50Ms: number;
  p95Ms: number;
  pagesPerSecond: number;
  peakMemoryMiB: number;
}

/** Runs `count` renders, `concurrency` at a time; memory is sampled for the whole process tree. */
async function measure(
  path: string,
  concurrency: number,
  count: number,
  renderOne: (i: number) => Promise<void>,
): Promise<Result> {
  const latencies: number[] = [];
  let peak = treeRssBytes(process.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(process.pid))), 100);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await renderOne(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  return {
    path,
    concurrency,
    renders: count,
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
    pagesPerSecond: round(count / seconds),
    peakMemoryMiB: round(peak / 2 ** 20),
  };
}

function round(value: number, digits = 1): number {
  return Number(value.toFixed(digits));
}

const site = http.createServer((req, res) => {
  const n = Number(/\/page\/(\d+)/.exec(req.url ?? "")?.[1] ?? 0);
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(fixturePage(n));
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const config = loadConfig(rendererConfigShape, {
  LOG_LEVEL: "warn",
  WINNOW_EGRESS_ALLOW: base.replace("http://", ""),
  // As many pages as the highest level, so our path queues no more than the bare script does.
  RENDER_MAX_PAGES: String(Math.max(...CONCURRENCIES)),
  RENDER_MAX_QUEUE: "64", // No gRPC server here, but the renderer's configuration includes its caller token.
  WINNOW_SERVICE_TOKEN: randomBytes(32).toString("base64url"),
});
const rendering = await createRendering(config, createLogger("bench", config.LOG_LEVEL));
if (!rendering.browser) throw new Error("this benchmark needs a Chromium");
await rendering.browser.start();
const bare = await chromium.launch({
  executablePath: findBrowser({ configured: config.CHROMIUM_PATH, pathVariable: process.env.PATH }).found
    ?.executablePath,
  args: ["--no-sandbox", "--disable-gpu"],
});

const ours = (mode: RenderChoice) => async (i: number) => {
  const page = await rendering.renderer.render({
    url: new URL(`${base}/page/${i}`),
    mode,
    waitFor: "",
    timeoutMs: 30_000,
    signal: new AbortController().signal,
  });
  if (!page.html.includes(`Product ${i}`)) throw new Error(`render ${i} lost its content`);
};
// browser.newPage() makes a fresh context for the page, as our path does for every render.
const bareScript = async (i: number) => {
  const page = await bare.newPage();
  await page.goto(`${base}/page/${i}`);
  const html = await page.content();
  await page.close();
  if (!html.includes(`Product ${i}`)) throw new Error(`bare render ${i} lost its content`);
};

// Warm both browsers and the JIT before anything is timed.
for (let i = 0; i < 8; i++) await Promise.all([ours("browser")(i), ours("static")(i), bareScript(i)]);

const results: Result[] = [];
for (const concurrency of CONCURRENCIES) {
  results.push(await measure("static", concurrency, RENDERS_PER_LEVEL * 4, ours("static")));
  results.push(await measure("browser", concurrency, RENDERS_PER_LEVEL, ours("browser")));
  results.push(await measure("bare-playwright", concurrency, RENDERS_PER_LEVEL, bareScript));
}
await bare.close();

// Soak: memory after each tenth of the renders, at concurrency 4.
const soak: { renders: number; memoryMiB: number }[] = [];
if (SOAK_RENDERS > 0) {
  const step = Math.max(1, Math.floor(SOAK_RENDERS / 10));
  for (let done = 0; done < SOAK_RENDERS; done += step) {
    await measure("soak", 4, step, (i) => ours("browser")(done + i));
    soak.push({ renders: done + step, memoryMiB: round(treeRssBytes(process.pid) / 2 ** 20) });
  }
}
await rendering.close();
site.close();

const byLevel = (path: string, c: number) => results.find((r) => r.path === path && r.concurrency === c)!;
const ratios = CONCURRENCIES.map((c) => ({
  concurrency: c,
  staticOverBrowserP50: round(byLevel("static", c).p50Ms / byLevel("browser", c).p50Ms, 3),
  oursOverBareP50: round(byLevel("browser", c).p50Ms / byLevel("bare-playwright", c).p50Ms, 2),
  oursOverBarePagesPerSecond: round(
    byLevel("browser", c).pagesPerSecond / byLevel("bare-playwright", c).pagesPerSecond,
    2,
  ),
}));

console.table(results);
console.table(ratios);
if (soak.length > 0) {
  console.table(soak);
  const growth = soak.at(-1)!.memoryMiB - soak[0]!.memoryMiB;
  console.log(
    `memory from ${soak[0]!.renders} to ${soak.at(-1)!.renders} browser renders: ${growth >= 0 ? "+" : ""}${round(growth)} MiB`,
  );
}
mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("../results/render.json", import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), rendersPerLevel: RENDERS_PER_LEVEL, results, ratios, soak }, null, 2)}\n`,
);

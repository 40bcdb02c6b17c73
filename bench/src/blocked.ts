/**
 * `npm run bench:blocked`: how long the browser path takes on a recipe page whose
 * dozen third-party scripts, stylesheets and images never load (bench/src/blocked-page.ts),
 * by where they point: addresses the egress guard refuses (private ranges), hosts that
 * do not resolve (named anew on every page, as pages of different sites name different
 * hosts, so no resolver answers from its cache), a loopback server that accepts and never
 * answers, and all three mixed.
 * Renders through the renderer's own path (createRendering) at concurrency 4, in
 * browser mode; prints p50/p95 of navigation and of the whole render, how many renders
 * came back incomplete, and writes bench/results/blocked.json.
 *
 *   npm run bench:blocked                  # 32 renders per kind
 *   RENDERS=64 npm run bench:blocked
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createLogger, loadConfig } from "@winnow/platform";
import { createRendering, rendererConfigShape } from "@winnow/renderer";
import { recipePageWithBlockedResources } from "./blocked-page.js";

const RENDERS = Number(process.env.RENDERS ?? 32);
const CONCURRENCY = 4;
const TIMEOUT_MS = 20_000;
const BLOCKED_PER_KIND = 4;

const hanging = http.createServer(() => undefined); // accepts, reads the request, never answers
await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
const hangingOrigin = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;

/** The blocked origins of page `n` of a kind. */
const origins = (make: (i: number, n: number) => string) => (n: number) =>
  Array.from({ length: BLOCKED_PER_KIND * 3 }, (_, i) => make(i, n));
const run = randomBytes(3).toString("hex");
const unresolvable = (i: number, n: number) =>
  i % 2 ? `http://cdn${i}.tracker-${run}-${n}.invalid` : `https://ads${i}.example-${run}-${n}.invalid`;
const KINDS: Record<string, (n: number) => string[]> = {
  refused: origins((i) => (i % 2 ? `http://10.20.0.${i + 1}` : `https://192.168.7.${i + 1}`)),
  unresolvable: origins(unresolvable),
  hanging: origins(() => hangingOrigin),
  mixed: origins((i, n) => [`http://10.20.0.${i + 1}`, unresolvable(i, n), hangingOrigin][i % 3]!),
};

const site = http.createServer((req, res) => {
  const [, kind = "", n = "0"] = /^\/(\w+)\/(\d+)/.exec(req.url ?? "") ?? [];
  const blocked = KINDS[kind];
  if (!blocked) return void res.writeHead(404).end();
  res
    .writeHead(200, { "content-type": "text/html; charset=utf-8" })
    .end(recipePageWithBlockedResources(Number(n), blocked(Number(n))));
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const siteHostPort = `127.0.0.1:${(site.address() as AddressInfo).port}`;

const config = loadConfig(rendererConfigShape, {
  LOG_LEVEL: "warn",
  WINNOW_EGRESS_ALLOW: `${siteHostPort},${hangingOrigin.replace("http://", "")}`,
  RENDER_MAX_PAGES: String(CONCURRENCY),
  // No gRPC server here, but the renderer's configuration includes its caller token.
  WINNOW_SERVICE_TOKEN: randomBytes(32).toString("base64url"),
});
const rendering = await createRendering(config, createLogger("bench", config.LOG_LEVEL));
if (!rendering.browser) throw new Error("this benchmark needs a Chromium");
await rendering.browser.start();

interface Row {
  kind: string;
  renders: number;
  failed: number;
  incomplete: number;
  navigationP50Ms: number;
  navigationP95Ms: number;
  totalP50Ms: number;
  totalP95Ms: number;
}

async function measure(kind: string, count: number): Promise<Row> {
  const navigation: number[] = [];
  const total: number[] = [];
  let failed = 0;
  let incomplete = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        const started = performance.now();
        try {
          const page = await rendering.renderer.render({
            url: new URL(`http://${siteHostPort}/${kind}/${i}`),
            mode: "browser",
            waitFor: "",
            timeoutMs: TIMEOUT_MS,
            signal: new AbortController().signal,
          });
          if (!page.html.includes(`Lemon Tart ${i}`)) throw new Error(`render ${i} lost its content`);
          if (page.incomplete) incomplete++;
          navigation.push(page.timings?.navigationMs ?? Number.NaN);
        } catch {
          failed++;
        }
        total.push(performance.now() - started);
      }
    }),
  );
  return {
    kind,
    renders: count,
    failed,
    incomplete,
    navigationP50Ms: percentile(navigation, 50),
    navigationP95Ms: percentile(navigation, 95),
    totalP50Ms: percentile(total, 50),
    totalP95Ms: percentile(total, 95),
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
}

await measure("refused", CONCURRENCY); // warm the browser and the JIT
const rows: Row[] = [];
for (const kind of Object.keys(KINDS)) rows.push(await measure(kind, RENDERS));
await rendering.close();
site.close();
hanging.closeAllConnections();
hanging.close();

console.table(rows);
mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("../results/blocked.json", import.meta.url),
  `${JSON.stringify({ date: new Date().toISOString(), concurrency: CONCURRENCY, timeoutMs: TIMEOUT_MS, rows }, null, 2)}\n`,
);

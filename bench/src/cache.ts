/**
 * `npm run bench:cache`: a repeat scrape answered from the scrape cache
 * against the same scrape done afresh, in one run, through the whole stack
 * on loopback (gateway, auth, renderer, extractor as processes, the test
 * suite's scripted model). Fresh: `max_age: 0` (the page is loaded and the
 * model asked every time); cached: `max_age: 3600` on a page scraped once
 * before (no load, no extraction, no model call). Sequential requests, with
 * the cache in the gateway's embedded database and in Redis.
 *
 * The scripted model answers at once; BENCH_MODEL_MS (default 0) delays its
 * answers, to see the saving with a model's latency (a hosted model takes
 * seconds). BENCH_REQUESTS (default 100) per side; BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379). Prints a table and writes bench/results/cache.json.
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { startFakeLlm } from "@winnow/test-support/fake-llm";
import { percentile, round } from "./format.js";
import { productPage } from "./product-page.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? 0);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

let pageLoads = 0;
const site = createServer((req, res) => {
  pageLoads += 1;
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(productPage(Number(req.url?.slice(1)) || 1));
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const llm = await startFakeLlm(async () => {
  if (MODEL_MS > 0) await new Promise((resolve) => setTimeout(resolve, MODEL_MS));
  return { product_name: "Trail Shoe", summary: "A light trail shoe." };
});

const REQUEST = {
  url: `${origin}/7`,
  schema: { product_name: "string", summary: "string" },
  task_description: "Summarize the product in one sentence.",
};

interface Side {
  p50: number;
  p95: number;
  mean: number;
  pageLoads: number;
  modelCalls: number;
}

interface Row {
  store: string;
  fresh: Side;
  cached: Side;
  /** Fresh p50 over cached p50. */
  ratio: number;
}

async function measure(gatewayUrl: string, apiKey: string, maxAge: number, requests = REQUESTS): Promise<Side> {
  const loadsBefore = pageLoads;
  const callsBefore = llm.requests.length;
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const response = await fetch(`${gatewayUrl}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ ...REQUEST, options: { max_age: maxAge } }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`scrape answered ${response.status}`);
    const path = response.headers.get("x-winnow-path");
    if (maxAge > 0 !== (path === "cache")) throw new Error(`max_age ${maxAge} was answered by ${path}`);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return {
    p50: round(percentile(latencies, 0.5)),
    p95: round(percentile(latencies, 0.95)),
    mean: round(latencies.reduce((sum, ms) => sum + ms, 0) / latencies.length),
    pageLoads: pageLoads - loadsBefore,
    modelCalls: llm.requests.length - callsBefore,
  };
}

async function run(store: string, env: NodeJS.ProcessEnv): Promise<Row> {
  const stack = await startThrowawayStack({
    env: {
      WINNOW_EGRESS_ALLOW: origin.slice("http://".length),
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: "bench",
      LLM_MODEL: "bench-model",
      ...env,
    },
  });
  try {
    // Warm up both paths (first calls compile the hot paths); a fresh scrape also puts the page in the cache.
    await measure(stack.gatewayUrl, stack.apiKey, 0, 20);
    await measure(stack.gatewayUrl, stack.apiKey, 3600, 20);
    const fresh = await measure(stack.gatewayUrl, stack.apiKey, 0);
    const cached = await measure(stack.gatewayUrl, stack.apiKey, 3600);
    return { store, fresh, cached, ratio: round(fresh.p50 / cached.p50) };
  } finally {
    await stack.stop();
  }
}

const prefix = `winnow-bench-${randomBytes(4).toString("hex")}:`;
const rows = [await run("embedded database", {}), await run("Redis", { REDIS_URL, REDIS_KEY_PREFIX: prefix })];
await llm.close();
site.close();

console.log(
  `\nRepeat scrape from cache vs fresh (${REQUESTS} sequential requests each; model latency ${MODEL_MS} ms)\n`,
);
console.log(
  "| store | fresh p50 / p95 ms | cached p50 / p95 ms | fresh/cached (p50) | loads, model calls (fresh / cached) |",
);
console.log("|---|---|---|---|---|");
for (const { store, fresh, cached, ratio } of rows) {
  console.log(
    `| ${store} | ${fresh.p50} / ${fresh.p95} | ${cached.p50} / ${cached.p95} | ${ratio}× | ${fresh.pageLoads}, ${fresh.modelCalls} / ${cached.pageLoads}, ${cached.modelCalls} |`,
  );
}
const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
await writeFile(
  path.join(resultsDir, "cache.json"),
  `${JSON.stringify({ requests: REQUESTS, modelMs: MODEL_MS, rows }, null, 2)}\n`,
);

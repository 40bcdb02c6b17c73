/**
 * Two jobs workers sharing batch jobs as a deployment runs them: one Redis
 * (BullMQ) and one Postgres gateway database. A worker killed with SIGKILL
 * in the middle of its pages has them run by the other (BullMQ's stalled-job
 * check), and the job finishes with every page's result, each page once; a
 * whole listing (options.pages) killed part-way is read again whole, each
 * record once. The kill lands while the worker reads a page: its
 * winnow_jobs_pages_running gauge says so, and pages take long enough that
 * the page is still being read.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tokenEnv } from "../../scripts/src/caller-tokens.js";
import type { FixturePage } from "../support/fixture-site.js";
import { freePorts } from "../support/ports.js";
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-postgres.js";
import { type ServiceProcess, startService } from "../support/service-process.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const PAGE_COUNT = 40;
/** Long enough that a page the worker is seen reading is still being read when it is killed. */
const SLOW_MS = 1_500;
const SHOPS = ["a", "b", "c", "d"];
const LISTING_PAGES = 3;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** Shop `shop`'s listing page `n`: three products and, but on the last page, a link to the next. */
function listingPage(shop: string, n: number): string {
  const items = [1, 2, 3]
    .map((i) => `<li><a href="/item/${shop}${n}${i}">Lamp ${shop}-${n}-${i}</a> <span>$${n}${i}.00</span></li>`)
    .join("");
  const next = n < LISTING_PAGES ? `<a rel="next" href="/shop-${shop}/${n + 1}">Next</a>` : "";
  return page(`Shop ${shop}`, `<h1>Shop ${shop}</h1><ul>${items}</ul>${next}`);
}

const PAGES: Record<string, FixturePage> = {
  ...Object.fromEntries(
    Array.from({ length: PAGE_COUNT }, (_, i) => [
      `/slow/${i}`,
      { delayMs: SLOW_MS, body: page(`Slow ${i}`, `<h1>Slow ${i}</h1>`) },
    ]),
  ),
  ...Object.fromEntries(
    SHOPS.flatMap((shop) =>
      Array.from({ length: LISTING_PAGES }, (_, i) => [
        `/shop-${shop}/${i + 1}`,
        { delayMs: SLOW_MS, body: listingPage(shop, i + 1) },
      ]),
    ),
  ),
};

let postgres: PrivatePostgres;
let run: RunningStack;
let shared: Record<string, string>;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  shared = {
    REDIS_URL,
    REDIS_KEY_PREFIX: `batch-failover-${randomUUID()}:`,
    GATEWAY_DATABASE_URL: postgres.url,
    BATCH_CONCURRENCY: "4",
  };
  run = await launchStack(PAGES, shared);
});
afterAll(async () => {
  for (const worker of workers) await worker.stop();
  await run?.stop();
  await postgres?.stop();
});

/** A second jobs worker beside the stack's own, sharing its queue and database; resolves to its metrics URL too. */
async function startSecondWorker(): Promise<{ worker: ServiceProcess; metrics: string }> {
  const [port, metricsPort] = (await freePorts(2)) as [number, number];
  const worker = await startService(
    "jobs",
    {
      ...shared,
      GRPC_PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: "warn",
      WINNOW_DATA_DIR: run.stack.dataDir,
      WINNOW_EGRESS_ALLOW: run.site.hostPort,
      AUTH_ADDR: `127.0.0.1:${run.ports.auth}`,
      RENDERER_ADDR: `127.0.0.1:${run.ports.renderer}`,
      EXTRACTOR_ADDR: `127.0.0.1:${run.ports.extractor}`,
      ...tokenEnv(run.stack.callerTokens, ["gateway", "service"]),
    },
    `127.0.0.1:${port}`,
    // The telemetry preload serves its metrics.
    ["--import", "@winnow/platform/telemetry"],
  );
  workers.push(worker);
  return { worker, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** Kills the worker while it reads a page (the stack's worker may hold the key's slots a while: both take its pages). */
async function killWhileReading({ worker, metrics }: { worker: ServiceProcess; metrics: string }): Promise<void> {
  for (;;) {
    const text = await (await fetch(metrics)).text();
    if (Number(/^winnow_jobs_pages_running(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0) > 0) break;
    await sleep(20);
  }
  worker.child.kill("SIGKILL");
}

type Job<Data> = {
  status: string;
  counts: { queued: number; done: number; failed: number };
  results: { index: number; status: string; data: Data }[];
};

/** Submits a batch job, runs `during` while it runs, and answers the finished job. */
async function runJob<Data>(body: object, during: () => Promise<void>): Promise<Job<Data>> {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${run.stack.gatewayUrl}${path}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
    });
  const submitted = await api("/batch/scrape", { method: "POST", body: JSON.stringify(body) });
  expect(submitted.status).toBe(202);
  const { status_url } = (await submitted.json()) as { status_url: string };
  await during();
  for (;;) {
    if (((await (await api(status_url)).json()) as Job<Data>).status === "completed") break;
    await sleep(500);
  }
  return (await (await api(`${status_url}?limit=1000`)).json()) as Job<Data>;
}

it(
  "a jobs worker killed mid-page has its pages run by the other, and the job finishes with every result once",
  async () => {
    const second = await startSecondWorker();
    const { results, counts } = await runJob<{ title: string }>(
      {
        urls: Array.from({ length: PAGE_COUNT }, (_, i) => `${run.site.origin}/slow/${i}`),
        schema: { title: "string" },
        options: { render: "static" },
      },
      () => killWhileReading(second),
    );
    expect(counts).toMatchObject({ queued: 0, done: PAGE_COUNT, failed: 0 });
    expect(results.map((r) => [r.status, r.data.title])).toEqual(
      Array.from({ length: PAGE_COUNT }, (_, i) => ["done", `Slow ${i}`]),
    );
    // The killed worker had a page in flight: it was fetched again, by the survivor.
    expect([...run.site.hits.entries()].some(([path, n]) => path.startsWith("/slow/") && n > 1)).toBe(true);
  },
  5 * TEST_TIMEOUT_MS,
);

it(
  "a whole listing whose worker is killed part-way is read again whole by the other: every record once, in page order",
  async () => {
    const second = await startSecondWorker();
    const { results, counts } = await runJob<{ products: { name: string; price: number }[] }>(
      {
        urls: SHOPS.map((shop) => `${run.site.origin}/shop-${shop}/1`),
        schema: { products: [{ name: "string", price: "number" }] },
        options: { render: "static", pages: LISTING_PAGES },
      },
      () => killWhileReading(second),
    );
    expect(counts).toMatchObject({ queued: 0, done: SHOPS.length, failed: 0 });
    expect(results.map((r) => r.data.products)).toEqual(
      SHOPS.map((shop) =>
        [1, 2, 3].flatMap((n) => [1, 2, 3].map((i) => ({ name: `Lamp ${shop}-${n}-${i}`, price: Number(`${n}${i}`) }))),
      ),
    );
    // The killed worker was reading a listing: some page of it was fetched again.
    expect([...run.site.hits.entries()].some(([path, n]) => path.startsWith("/shop-") && n > 1)).toBe(true);
  },
  5 * TEST_TIMEOUT_MS,
);

/**
 * Two jobs workers sharing batch jobs as a deployment runs them: one Redis
 * (BullMQ) and one Postgres gateway database. A worker killed with SIGKILL
 * in the middle of its pages has them run by the other (BullMQ's stalled-job
 * check), and the job finishes with every page's result, each page once; a
 * whole listing (options.pages) killed part-way is read again whole, each
 * record once. The kill lands while the worker reads a page: pages are held
 * until then, and it comes once every page the workers' winnow_jobs_pages_running
 * gauges count is being answered by the site, one of them the killed worker's.
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
/** Twice as many listings as a worker reads at once (BATCH_CONCURRENCY): the second worker takes some. */
const SHOPS = ["a", "b", "c", "d", "e", "f", "g", "h"];
const LISTING_PAGES = 3;

/** Pages answer once their test has killed the worker. */
function hold(): { until: Promise<void>; release: () => void } {
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { until, release };
}
const slowPages = hold();
const shopPages = hold();

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
      { heldUntil: slowPages.until, body: page(`Slow ${i}`, `<h1>Slow ${i}</h1>`) },
    ]),
  ),
  ...Object.fromEntries(
    SHOPS.flatMap((shop) =>
      Array.from({ length: LISTING_PAGES }, (_, i) => [
        `/shop-${shop}/${i + 1}`,
        { heldUntil: shopPages.until, body: listingPage(shop, i + 1) },
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
    // A page's lease is twice this: a killed worker's pages are taken again within two leases (a deployment's default
    // of 60 s would have this test wait up to a minute for each kill).
    REQUEST_TIMEOUT_MS: String(TEST_TIMEOUT_MS / 6),
  };
  run = await launchStack(PAGES, shared);
});
afterAll(async () => {
  slowPages.release();
  shopPages.release();
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

/** Pages the jobs worker whose metrics are at `url` is reading now (its winnow_jobs_pages_running gauge). */
async function pagesRunning(url: string): Promise<number> {
  const text = await (await fetch(url)).text();
  return Number(/^winnow_jobs_pages_running(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
}

/**
 * Kills the worker while the site answers one of its pages, then lets the held pages answer. Every page a worker has
 * taken is at the site once the site answers as many requests as both workers count pages: while pages are held no
 * page ends, so the count of pages taken only grows, and the requests never outnumber them.
 */
async function killWhileReading({ worker, metrics }: { worker: ServiceProcess; metrics: string }, release: () => void) {
  const stackWorker = `http://127.0.0.1:${run.stack.metricsPorts.jobs}/metrics`;
  for (;;) {
    const before = run.site.inFlight();
    const [theirs, ours] = await Promise.all([pagesRunning(metrics), pagesRunning(stackWorker)]);
    if (theirs > 0 && before === theirs + ours && run.site.inFlight() === before) break;
    await sleep(20);
  }
  worker.child.kill("SIGKILL");
  release();
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
      () => killWhileReading(second, slowPages.release),
    );
    expect(counts).toMatchObject({ queued: 0, done: PAGE_COUNT, failed: 0 });
    expect(results.map((r) => [r.status, r.data.title])).toEqual(
      Array.from({ length: PAGE_COUNT }, (_, i) => ["done", `Slow ${i}`]),
    );
    // The killed worker's page was fetched again, by the survivor.
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
      () => killWhileReading(second, shopPages.release),
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

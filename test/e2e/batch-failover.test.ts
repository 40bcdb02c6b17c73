/**
 * Two jobs workers sharing batch jobs as a deployment runs them: one Redis
 * (BullMQ) and one Postgres gateway database. A worker killed with SIGKILL
 * in the middle of its pages has them run by the other (BullMQ's stalled-job
 * check), and the job finishes with every page's result, each page once.
 * The kill lands while the worker reads a page: its winnow_jobs_pages_running
 * gauge says so, and pages take long enough that the page is still being read.
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

const PAGES: Record<string, FixturePage> = Object.fromEntries(
  Array.from({ length: PAGE_COUNT }, (_, i) => [
    `/slow/${i}`,
    // Slow, so that a page the worker is seen reading is still being read when it is killed.
    {
      delayMs: 1_500,
      body: `<!doctype html><html><head><title>Slow ${i}</title></head><body><h1>Slow ${i}</h1></body></html>`,
    },
  ]),
);

let postgres: PrivatePostgres;
let run: RunningStack;
let second: ServiceProcess;
let secondMetrics: string;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  const shared = {
    REDIS_URL,
    REDIS_KEY_PREFIX: `batch-failover-${randomUUID()}:`,
    GATEWAY_DATABASE_URL: postgres.url,
    BATCH_CONCURRENCY: "4",
  };
  run = await launchStack(PAGES, shared);
  const [port, metricsPort] = (await freePorts(2)) as [number, number];
  secondMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
  second = await startService(
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
});
afterAll(async () => {
  await second?.stop();
  await run?.stop();
  await postgres?.stop();
});

it(
  "a jobs worker killed mid-page has its pages run by the other, and the job finishes with every result once",
  async () => {
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${run.stack.gatewayUrl}${path}`, {
        ...init,
        headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
      });
    const submitted = await api("/batch/scrape", {
      method: "POST",
      body: JSON.stringify({
        urls: Array.from({ length: PAGE_COUNT }, (_, i) => `${run.site.origin}/slow/${i}`),
        schema: { title: "string" },
        options: { render: "static" },
      }),
    });
    expect(submitted.status).toBe(202);
    const { status_url } = (await submitted.json()) as { status_url: string };
    const status = async () =>
      (await (await api(status_url)).json()) as { status: string; counts: { queued: number; done: number } };

    // Killed while it reads a page (the other worker may hold the key's slots for a while: both take its pages).
    for (;;) {
      const metrics = await (await fetch(secondMetrics)).text();
      if (Number(/^winnow_jobs_pages_running(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? 0) > 0) break;
      await sleep(20);
    }
    second.child.kill("SIGKILL");
    for (;;) {
      if ((await status()).status === "completed") break;
      await sleep(500);
    }

    const { results, counts } = (await (await api(`${status_url}?limit=1000`)).json()) as {
      results: { index: number; status: string; data: { title: string } }[];
      counts: object;
    };
    expect(counts).toMatchObject({ queued: 0, done: PAGE_COUNT, failed: 0 });
    expect(results.map((r) => [r.status, r.data.title])).toEqual(
      Array.from({ length: PAGE_COUNT }, (_, i) => ["done", `Slow ${i}`]),
    );
    // The killed worker had pages in flight: they were fetched again, by the survivor.
    expect([...run.site.hits.values()].some((n) => n > 1)).toBe(true);
  },
  5 * TEST_TIMEOUT_MS,
);

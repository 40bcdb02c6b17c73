/**
 * `npm run bench:batch`: a 1,000-page batch job against the same number of
 * pages scraped one by one with POST /scrape at the same concurrency, in one
 * run on one stack, for each queue: the embedded default (pg-boss on PGlite)
 * and Redis (BullMQ; skipped when BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379, does not answer). Static product pages, builtin
 * engine. The job's gateway scrapes BATCH_CONCURRENCY pages at once; the one
 * by one side runs that many clients, each sending its next request when the
 * last one answered. Both sides first warm up on other pages (the extractor
 * learns the site's template on its first pages). The job is timed from its
 * submission to its `completed` status (polled every 100 ms), results read
 * after. Each side also reports the gateway's and the jobs worker's CPU
 * time per page (each process's user + system time from /proc, Linux only),
 * which a shared machine's load disturbs less than the wall time: a job's
 * pages run in the jobs worker, and cost the gateway only its status polls. BENCH_PAGES (default 1000)
 * and BENCH_CONCURRENCY (default 8) set the size; BENCH_REDIS_URL=none skips
 * the Redis queue. Prints a table and writes bench/results/batch.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { cpuMs } from "./process-cpu.js";
import { PRODUCT_SCHEMA, serveProductPages } from "./product-page.js";
import { redisAnswers } from "./redis-answers.js";

const PAGES = Number(process.env.BENCH_PAGES ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const WARM_UP_PAGES = 100;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

const { site, origin } = await serveProductPages();

interface Side {
  seconds: number;
  pagesPerSecond: number;
  failed: number;
  /** The gateway's CPU ms per page. */
  gatewayCpuMs: number;
  /** The jobs worker's CPU ms per page. */
  jobsCpuMs: number;
}

interface Row {
  queue: string;
  pages: number;
  concurrency: number;
  oneByOne: Side;
  batch: Side;
  /** Batch pages per second over one-by-one pages per second. */
  ratio: number;
}

async function measure(queue: string, env: Record<string, string>): Promise<Row> {
  const stack = await startThrowawayStack({
    env: {
      WINNOW_EGRESS_ALLOW: origin.replace("http://", ""),
      BATCH_CONCURRENCY: String(CONCURRENCY),
      BATCH_MAX_URLS: String(PAGES),
      RENDER_MAX_QUEUE: "256",
      ...env,
    },
  });
  const call = (route: string, init: RequestInit = {}) =>
    fetch(`${stack.gatewayUrl}${route}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
    });
  const urls = (from: number, count: number) => Array.from({ length: count }, (_, i) => `${origin}/p/${from + i}`);

  // C clients, each sending its next scrape when the last one answered.
  const oneByOne = async (list: string[]) => {
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < list.length; i = next++) {
          const res = await call("/scrape", {
            method: "POST",
            body: JSON.stringify({ url: list[i], schema: PRODUCT_SCHEMA, options: { render: "static" } }),
          });
          await res.arrayBuffer();
          if (!res.ok) failed++;
        }
      }),
    );
    return { seconds: (performance.now() - started) / 1000, failed };
  };
  const batch = async (list: string[]) => {
    const started = performance.now();
    const submitted = await call("/batch/scrape", {
      method: "POST",
      body: JSON.stringify({ urls: list, schema: PRODUCT_SCHEMA, options: { render: "static" } }),
    });
    if (submitted.status !== 202) throw new Error(`batch refused: ${submitted.status} ${await submitted.text()}`);
    const { status_url } = (await submitted.json()) as { status_url: string };
    for (;;) {
      const job = (await (await call(status_url)).json()) as { status: string; counts: { failed: number } };
      if (job.status === "completed")
        return { seconds: (performance.now() - started) / 1000, failed: job.counts.failed };
      await sleep(100);
    }
  };

  await oneByOne(urls(1_000_000, WARM_UP_PAGES));
  await batch(urls(2_000_000, WARM_UP_PAGES));
  const gateway = stack.process("gateway").pid!;
  const jobs = stack.process("jobs").pid!;
  const timed = async (run: () => Promise<{ seconds: number; failed: number }>): Promise<Side> => {
    const before = { gateway: cpuMs(gateway), jobs: cpuMs(jobs) };
    const { seconds, failed } = await run();
    return {
      seconds,
      failed,
      pagesPerSecond: PAGES / seconds,
      gatewayCpuMs: (cpuMs(gateway) - before.gateway) / PAGES,
      jobsCpuMs: (cpuMs(jobs) - before.jobs) / PAGES,
    };
  };
  const direct = await timed(() => oneByOne(urls(0, PAGES)));
  const job = await timed(() => batch(urls(PAGES, PAGES)));
  await stack.stop();
  return {
    queue,
    pages: PAGES,
    concurrency: CONCURRENCY,
    oneByOne: direct,
    batch: job,
    ratio: job.pagesPerSecond / direct.pagesPerSecond,
  };
}

const rows: Row[] = [await measure("embedded (pg-boss on PGlite)", {})];
if (await redisAnswers(REDIS_URL))
  rows.push(await measure("Redis (BullMQ)", { REDIS_URL, REDIS_KEY_PREFIX: `bench-batch-${Date.now()}:` }));
else console.log(`\n${REDIS_URL} does not answer: the Redis queue is not measured`);
site.close();

console.log(
  `\n${PAGES} static pages at concurrency ${CONCURRENCY} on loopback (${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})\n`,
);
console.log(
  "queue                         | one by one  s   pages/s  failed  gw CPU ms jobs CPU ms | batch job  s   pages/s  failed  gw CPU ms jobs CPU ms | ratio",
);
const side = (s: Side, width: number) =>
  `${s.seconds.toFixed(1).padStart(width)} ${s.pagesPerSecond.toFixed(1).padStart(9)} ${String(s.failed).padStart(7)} ${s.gatewayCpuMs.toFixed(2).padStart(10)} ${s.jobsCpuMs.toFixed(2).padStart(11)}`;
for (const r of rows)
  console.log(`${r.queue.padEnd(29)} | ${side(r.oneByOne, 12)} | ${side(r.batch, 11)} | ${r.ratio.toFixed(2)}x`);
const out = path.join(REPO_ROOT, "bench/results/batch.json");
await mkdir(path.dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), rows }, null, 2)}\n`,
);
console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
process.exit(0);

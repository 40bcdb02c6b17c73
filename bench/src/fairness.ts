/**
 * `npm run bench:fairness`: a neighbour's small batch job alone, and again
 * while another account's backlog of BENCH_BACKLOG (default 5,000) pages
 * waits (jobs of BATCH_MAX_URLS pages, submitted first; both accounts on the
 * default plan, 60 requests a minute and 4 scrapes at once, so the backlog
 * mostly waits for its key), in one run on one stack per queue: the
 * embedded default (pg-boss on PGlite) and Redis (BullMQ; skipped when
 * BENCH_REDIS_URL, default redis://127.0.0.1:6379, does not answer or is
 * "none"). Static product pages, builtin engine. Each job is timed from its
 * submission to its `completed` status (polled every 100 ms). Beside the
 * backlog the neighbour submits a job right away, then one every 10 s for
 * BENCH_WATCH_SECONDS (default 75), so that one meets the reset of the
 * backlog key's minute, when its waiting pages come due together. The ratio
 * is the slowest of them over the time alone (target: at most 2x).
 * BENCH_NEIGHBOUR_PAGES (default 5) sets the small job's size; the
 * neighbour's own jobs stay within its minute's requests. BENCH_PROFILE=1
 * writes a V8 CPU profile of each run's jobs worker (where every page and
 * the embedded queue run) to bench/results/profiles/jobs/.
 * Prints a table and writes bench/results/fairness.json.
 */
import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, promiseClient } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { PRODUCT_SCHEMA, serveProductPages } from "./product-page.js";
import { redisAnswers } from "./redis-answers.js";

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 5000);
const NEIGHBOUR_PAGES = Number(process.env.BENCH_NEIGHBOUR_PAGES ?? 5);
const WATCH_MS = Number(process.env.BENCH_WATCH_SECONDS ?? 75) * 1000;
/** Between the neighbour's jobs beside the backlog. */
const PAUSE_MS = 10_000;
const JOB_PAGES = 1000;
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const PROFILE_DIR = process.env.BENCH_PROFILE ? path.join(REPO_ROOT, "bench/results/profiles/jobs") : undefined;

const { site, origin } = await serveProductPages();

interface Row {
  queue: string;
  backlog: number;
  neighbourPages: number;
  aloneSeconds: number;
  /** The neighbour's slowest job beside the backlog, and the median of them. */
  besideBacklogSeconds: number;
  besideMedianSeconds: number;
  /** Jobs the neighbour ran beside the backlog. */
  besideJobs: number;
  /** Each of them, in the order they ran, with when it was submitted (s after the backlog). */
  beside: { atSeconds: number; seconds: number }[];
  /** The neighbour's slowest time beside the backlog over its time alone. */
  ratio: number;
  /** Backlog pages finished when the neighbour's job completed. */
  backlogDone: number;
}

async function measure(queue: string, env: Record<string, string>): Promise<Row> {
  const stack = await startThrowawayStack({
    nodeArgs: PROFILE_DIR ? { jobs: ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] } : undefined,
    env: {
      WINNOW_EGRESS_ALLOW: origin.replace("http://", ""),
      BATCH_MAX_URLS: String(JOB_PAGES),
      BATCH_MAX_LIVE_JOBS: String(Math.ceil(BACKLOG / JOB_PAGES)),
      // The default plan (the throwaway stack lifts it): the backlog waits for its key, as a real one does.
      PLAN_REQUESTS_PER_MINUTE: "60",
      PLAN_MAX_CONCURRENT_SCRAPES: "4",
      ...env,
    },
  });
  const auth = promiseClient(
    createClient(AuthServiceClient, `127.0.0.1:${stack.ports.auth}`, stack.callerTokens.gateway),
  );
  const neighbourKey = (await auth.createAccount({ email: `${randomUUID()}@bench.example`, password: "" })).apiKey;
  auth.grpc.close();
  const call = (key: string, route: string, init: RequestInit = {}) =>
    fetch(`${stack.gatewayUrl}${route}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": key },
    });
  const submit = async (key: string, from: number, count: number): Promise<string> => {
    const urls = Array.from({ length: count }, (_, i) => `${origin}/p/${from + i}`);
    const res = await call(key, "/batch/scrape", {
      method: "POST",
      body: JSON.stringify({ urls, schema: PRODUCT_SCHEMA, options: { render: "static" } }),
    });
    if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { status_url: string }).status_url;
  };
  const status = async (key: string, url: string) =>
    (await (await call(key, url)).json()) as { status: string; counts: { done: number; failed: number } };
  /** Seconds from the neighbour's submission to its job's end. */
  const neighbourJob = async (from: number) => {
    const started = performance.now();
    const url = await submit(neighbourKey, from, NEIGHBOUR_PAGES);
    while ((await status(neighbourKey, url)).status !== "completed") await sleep(100);
    return (performance.now() - started) / 1000;
  };

  // Warm-up (the extractor learns the site's template on its first pages), then the neighbour alone.
  await neighbourJob(1_000_000);
  const aloneSeconds = await neighbourJob(2_000_000);
  const backlog: string[] = [];
  for (let from = 0; from < BACKLOG; from += JOB_PAGES)
    backlog.push(await submit(stack.apiKey, from, Math.min(JOB_PAGES, BACKLOG - from)));
  const submitted = performance.now();
  const beside: Row["beside"] = [];
  do {
    const atSeconds = (performance.now() - submitted) / 1000;
    beside.push({ atSeconds, seconds: await neighbourJob(3_000_000 + beside.length * 1000) });
    await sleep(PAUSE_MS);
  } while (performance.now() - submitted < WATCH_MS);
  const times = beside.map((job) => job.seconds).sort((a, b) => a - b);
  const besideBacklogSeconds = times.at(-1)!;
  let backlogDone = 0;
  for (const url of backlog) {
    const { counts } = await status(stack.apiKey, url);
    backlogDone += counts.done + counts.failed;
  }
  await stack.stop();
  return {
    queue,
    backlog: BACKLOG,
    neighbourPages: NEIGHBOUR_PAGES,
    aloneSeconds,
    besideBacklogSeconds,
    besideMedianSeconds: times[Math.floor(times.length / 2)]!,
    besideJobs: beside.length,
    beside,
    ratio: besideBacklogSeconds / aloneSeconds,
    backlogDone,
  };
}

const rows: Row[] = [await measure("embedded (pg-boss on PGlite)", {})];
if (await redisAnswers(REDIS_URL))
  rows.push(await measure("Redis (BullMQ)", { REDIS_URL, REDIS_KEY_PREFIX: `bench-fairness-${Date.now()}:` }));
else console.log(`\n${REDIS_URL} does not answer: the Redis queue is not measured`);
site.close();

console.log(
  `\na neighbour's ${NEIGHBOUR_PAGES}-page job alone and beside another account's ${BACKLOG}-page backlog (${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})\n`,
);
console.log(
  "queue                         | alone s | beside backlog: slowest s | median s | jobs | ratio | backlog pages done meanwhile",
);
for (const r of rows)
  console.log(
    `${r.queue.padEnd(29)} | ${r.aloneSeconds.toFixed(2).padStart(7)} | ${r.besideBacklogSeconds.toFixed(2).padStart(25)} | ${r.besideMedianSeconds.toFixed(2).padStart(8)} | ${String(r.besideJobs).padStart(4)} | ${`${r.ratio.toFixed(2)}x`.padStart(5)} | ${r.backlogDone}`,
  );
for (const r of rows)
  console.log(
    `${r.queue}: ${r.beside.map((job) => `${job.seconds.toFixed(2)} s at ${job.atSeconds.toFixed(0)} s`).join(", ")}`,
  );
const out = path.join(REPO_ROOT, "bench/results/fairness.json");
await mkdir(path.dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), rows }, null, 2)}\n`,
);
console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
process.exit(0);

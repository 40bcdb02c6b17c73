/** Figures of the stack's benchmarks (auth, load, soak, hostile, cache, batch, fairness) in bench/README.md. */
import type { Figures } from "../doc-figures.js";
import { at, count, f1, list, num, pct, type Results, table } from "./results.js";

interface Timed {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  requests: number;
  errors: Record<string, number>;
  cpuMsPerScrape?: Record<string, number>;
  mainThreadMsPerScrape?: Record<string, number>;
}

interface LoadRow {
  pages: string;
  concurrency: number;
  stack: Timed;
  direct: Timed;
  p50Ratio: number;
}

interface CacheRow {
  variant: string;
  concurrency: number;
  rpsRatio: number;
  p50Ratio: number;
  p95Ratio: number;
  gatewayCpuMs: { default: number; variant: number };
}

const SERVICES = ["gateway", "auth", "renderer", "extractor"];

/** `152.4`, `305`: milliseconds to a tenth below 250 (static pages), whole above (browser pages). */
const ms = (x: number) => (x < 250 ? f1(x) : String(Math.round(x)));
/** `1,428`, `3.2`: requests per second, whole from 100. */
const rps = (x: number) => (x < 100 ? f1(x) : count(x));
/** `0.06`, `2.2`: CPU milliseconds, two places below a tenth. */
const cpu = (x: number) => x.toFixed(x < 0.1 ? 2 : 1);
const times = (x: number, digits = 2) => `${x.toFixed(digits)}×`;
/** `1,600–1,700`: a range of request rates to the hundred. */
const hundreds = (...xs: number[]) => {
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)].map((x) => count(Math.round(x / 100) * 100));
  return lo === hi ? `${lo}` : `${lo}–${hi}`;
};

function loadTable(r: Results): string {
  return table(
    ["pages", "concurrency", "stack p50 / p95 / p99 ms", "stack req/s", "direct p50 ms", "direct req/s", "p50 ratio"],
    list<LoadRow>(r, "load.rows").map((row) => [
      row.pages,
      String(row.concurrency),
      `${ms(row.stack.p50)} / ${ms(row.stack.p95)} / ${ms(row.stack.p99)}`,
      rps(row.stack.rps),
      ms(row.direct.p50),
      rps(row.direct.rps),
      times(row.p50Ratio),
    ]),
  );
}

function loadCacheTable(r: Results): string {
  const rows = list<CacheRow>(r, "load.cacheRows");
  const levels = [...new Set(rows.map((row) => row.concurrency))];
  return table(
    [
      "static, concurrency",
      "storing every scrape: req/s, p50, p95 vs default",
      "gateway CPU ms per scrape",
      "no cache: req/s vs default",
    ],
    levels.map((level) => {
      const storing = rows.find((row) => row.concurrency === level && row.variant === "storing every scrape");
      const none = rows.find((row) => row.concurrency === level && row.variant === "no scrape cache");
      if (!storing || !none) throw new Error(`bench/results load.cacheRows lacks a variant at concurrency ${level}`);
      return [
        String(level),
        `${times(storing.rpsRatio)}, ${times(storing.p50Ratio)}, ${times(storing.p95Ratio)}`,
        `${storing.gatewayCpuMs.variant.toFixed(2)} vs ${storing.gatewayCpuMs.default.toFixed(2)}`,
        times(none.rpsRatio),
      ];
    }),
  );
}

function staticCpu(r: Results): LoadRow[] {
  return list<LoadRow>(r, "load.rows").filter((row) => row.pages === "static");
}

function cpuPerScrape(r: Results): string {
  const rows = staticCpu(r);
  return SERVICES.map(
    (service) =>
      `${service} ${rows.map((row) => cpu(row.stack.cpuMsPerScrape?.[service] ?? Number.NaN)).join(" / ")} ms`,
  ).join(", ");
}

function topLevel(r: Results): LoadRow {
  const top = staticCpu(r).at(-1);
  if (!top) throw new Error("bench/results load.rows has no static level");
  return top;
}

function cpuAtTop(r: Results): string {
  const top = topLevel(r);
  const all = Object.values(top.stack.cpuMsPerScrape ?? {}).reduce((a, b) => a + b, 0);
  const yardstick = num(r, "load.yardstickMs");
  return `At ${top.concurrency}, where the processes never idle, the services cost ${cpu(all)} ms of CPU per scrape in all, ${f1(all / yardstick)} times the builtin engine alone on the same page in one process (${yardstick.toFixed(2)} ms, the yardstick)`;
}

/** Each service's CPU per scrape at the top level, and its main thread's part. */
function mainThreadAtTop(r: Results): string {
  const { concurrency, stack } = topLevel(r);
  const part = (service: string) =>
    `${service} ${cpu(stack.mainThreadMsPerScrape?.[service] ?? Number.NaN)} of ${cpu(stack.cpuMsPerScrape?.[service] ?? Number.NaN)} ms`;
  return `at ${concurrency}, ${SERVICES.map(part).join(", ")}`;
}

function hostileRun(r: Results): string {
  const side = (name: string) => at(r, `hostile.${name}.normal`) as Timed;
  const errors = Object.entries(side("beside").errors).map(([what, n]) => `${n} × ${what}`);
  const pages = at(r, "hostile.beside.hostilePages") as Record<
    string,
    { outcomes: Record<string, number>; maxMs: number }
  >;
  const outcomes = Object.entries(pages).map(
    ([page, p]) =>
      `${page} ${Object.entries(p.outcomes)
        .map(([outcome, n]) => `${n} ${outcome}`)
        .join(", ")} (slowest ${count(p.maxMs)} ms)`,
  );
  return table(
    ["normal alone p50 / p95 ms", "beside hostile p50 / p95 ms", "normal errors beside", "p95 ratio", "hostile pages"],
    [
      [
        `${f1(side("alone").p50)} / ${f1(side("alone").p95)} (${count(side("alone").requests)} ok)`,
        `${f1(side("beside").p50)} / ${f1(side("beside").p95)} (${count(side("beside").requests)} ok)`,
        errors.length ? errors.join(", ") : "none",
        times(num(r, "hostile.p95Ratio")),
        outcomes.join("; "),
      ],
    ],
  );
}

interface CacheBenchRow {
  store: string;
  fresh: { p50: number; p95: number; pageLoads: number; modelCalls: number };
  cached: { p50: number; p95: number; pageLoads: number; modelCalls: number };
  ratio: number;
}

function cacheTable(r: Results): string {
  return table(
    [
      "store",
      "fresh p50 / p95 ms",
      "cached p50 / p95 ms",
      "fresh/cached (p50)",
      "page loads, model calls (fresh / cached)",
    ],
    list<CacheBenchRow>(r, "cache.rows").map((row) => [
      row.store,
      `${f1(row.fresh.p50)} / ${f1(row.fresh.p95)}`,
      `${f1(row.cached.p50)} / ${f1(row.cached.p95)}`,
      times(row.ratio, 1),
      `${row.fresh.pageLoads}, ${row.fresh.modelCalls} / ${row.cached.pageLoads}, ${row.cached.modelCalls}`,
    ]),
  );
}

interface BatchRow {
  queue: string;
  oneByOne: { pagesPerSecond: number };
  batch: { pagesPerSecond: number };
  ratio: number;
}

interface FairnessRow {
  queue: string;
  aloneSeconds: number;
  besideBacklogSeconds: number;
  besideMedianSeconds: number;
  besideJobs: number;
  ratio: number;
  backlogDone: number;
}

function soakSummary(r: Results): string {
  const during = at(r, "soak.errors.duringFaults") as Record<string, number>;
  const otherwise = Object.values(at(r, "soak.errors.otherwise") as Record<string, number>).reduce((a, b) => a + b, 0);
  const faults = list<unknown>(r, "soak.faults").length;
  const kinds = Object.entries(during).map(([what, n]) => `${n} \`${what.replace(/^\d+ /, "")}\``);
  const all = Object.values(during).reduce((a, b) => a + b, 0);
  return `${count(num(r, "soak.ok"))} scrapes succeeded; the ${faults} faults cost ${all} retryable 503s (${kinds.join(", ")}) within 15 s of them and ${otherwise ? `${otherwise} errors outside` : "**no errors outside**"}`;
}

function soakMemory(r: Results): string {
  const growth = at(r, "soak.growth") as Record<string, number>;
  return Object.entries(growth)
    .map(([service, g]) => `${service} ${g >= 0 ? "+" : "−"}${pct(Math.abs(g), Math.abs(g) < 0.2 ? 1 : 0)}`)
    .join(", ");
}

/** `2 shared cores, load average 3.3`: the machine a result file's run had. */
const machine = (r: Results, file: string) =>
  `${num(r, `${file}.cpus`)} shared cores, load average ${f1(num(r, `${file}.loadavg.0`))}`;

export function serviceFigures(r: Results): Figures {
  const gateway = (db: string, path: string) =>
    num(r, `auth.results.${db}.gateway.${path}.throughput.requestsPerSecond`);
  return {
    "auth.machine": () => machine(r, "auth"),
    "auth.validate-key": () =>
      `ValidateKey p50 ${num(r, "auth.results.postgres.validateKey.valid.p50").toFixed(2)} ms on Postgres and ${num(r, "auth.results.pglite.validateKey.valid.p50").toFixed(2)} ms on PGlite, against ${num(r, "auth.results.postgres.validateKey.malformed.p50").toFixed(2)} / ${num(r, "auth.results.pglite.validateKey.malformed.p50").toFixed(2)} ms`,
    "auth.gateway": () =>
      `about ${hundreds(gateway("pglite", "GET /account, valid key (200), cached"))} req/s on PGlite (${hundreds(gateway("postgres", "GET /account, valid key (200), cached"))} on Postgres) with the key cache, against ${hundreds(gateway("pglite", "GET /account, valid key (200), key cache off"), gateway("postgres", "GET /account, valid key (200), key cache off"))} req/s when every request asks auth, and ${hundreds(gateway("pglite", "GET /healthz (no key check)"), gateway("postgres", "GET /healthz (no key check)"))} req/s for \`/healthz\``,
    "load.machine": () => machine(r, "load"),
    "load.rows": () => loadTable(r),
    "load.cache-rows": () => loadCacheTable(r),
    "load.cpu-per-scrape": () => cpuPerScrape(r),
    "load.cpu-at-top": () => cpuAtTop(r),
    "load.main-thread": () => mainThreadAtTop(r),
    "soak.summary": () => soakSummary(r),
    "soak.memory": () => soakMemory(r),
    "hostile.machine": () => machine(r, "hostile"),
    "hostile.run": () => hostileRun(r),
    "cache.rows": () => cacheTable(r),
    "batch.machine": () => machine(r, "batch"),
    "batch.rows": () =>
      list<BatchRow>(r, "batch.rows")
        .map(
          (row) =>
            `${row.queue} ${f1(row.oneByOne.pagesPerSecond)} pages/s one by one against ${f1(row.batch.pagesPerSecond)} as a job (${times(row.ratio)})`,
        )
        .join(", "),
    "fairness.machine": () => machine(r, "fairness"),
    "fairness.rows": () =>
      table(
        [
          "queue",
          "neighbour alone, s",
          "beside the backlog: slowest, s",
          "median, s",
          "jobs",
          "ratio (slowest)",
          "backlog pages done meanwhile",
        ],
        list<FairnessRow>(r, "fairness.rows").map((row) => [
          row.queue,
          row.aloneSeconds.toFixed(2),
          row.besideBacklogSeconds.toFixed(2),
          row.besideMedianSeconds.toFixed(2),
          String(row.besideJobs),
          times(row.ratio),
          String(row.backlogDone),
        ]),
      ),
  };
}

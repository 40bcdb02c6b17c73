/**
 * `npm run bench:listing -- [split-dir] [--llm [--oracle path]]`: the multi-page corpus (by default
 * ../shared/corpus/multipage) through a throwaway stack, each site served on loopback by the corpus's own server
 * (serve_sites.py), each case asked twice in the same run: as one page (`pages: 1`, the answer before whole listings)
 * and as the whole listing (`pages: max_pages`, `details: follow_details`). Both are scored record by record by the
 * corpus's scorer (score_multipage.py: records found, extra, duplicates, pages covered, field and detail-field P/R/F1
 * per site); the bench adds pages read (Winnow-Pages), model calls and tokens, and wall time.
 *
 * Throughput: after each whole listing, the pages it read go through batch jobs (listing-batch.ts) in the same run,
 * and both sides' pages per second are printed with their ratio. Each run and the batch use an account of their own,
 * so no run answers from templates or cache another one filled.
 *
 * `--llm`: the model is the corpus's perfect reader (`../shared/tools/oracle_llm.py` with the split's
 * oracle-cases.jsonl); model calls are counted from its log, with the pages they were made for. Writes
 * bench/results/listing.json (builtin engine) or listing-llm.json (the oracle).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { createClient, promiseClient } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { Agent } from "undici";
import { itemSchemaOf } from "./list-score.js";
import { type BatchRun, batchOf, pagesOfListing } from "./listing-batch.js";
import { type SiteScore, scorerTable } from "./multipage-score.js";
import { serveSites } from "./multipage-sites.js";
import { type Oracle, type OracleCall, startOracle } from "./oracle.js";
import { llmEnv } from "./runners.js";
import type { SchemaValue } from "./score.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    llm: { type: "boolean", default: false },
    oracle: { type: "string", default: path.join(REPO_ROOT, "../shared/tools/oracle_llm.py") },
  },
});
const splitDir = path.resolve(positionals[0] ?? path.join(REPO_ROOT, "../shared/corpus/multipage"));
const tools = path.join(REPO_ROOT, "../shared/tools");
/** A whole listing with every record's page can take minutes; the stack's deadline is raised to match. */
const LISTING_TIMEOUT_MS = 600_000;
/** fetch's own wait for an answer's headers (5 minutes) is shorter than a whole listing may take. */
const patient = new Agent({ headersTimeout: LISTING_TIMEOUT_MS + 10_000, bodyTimeout: LISTING_TIMEOUT_MS + 10_000 });

interface MultipageCase {
  id: string;
  site: string;
  start_path: string;
  max_pages: number;
  follow_details: boolean;
  schema: Record<string, unknown>;
}

/** What one site's read cost: pages (Winnow-Pages), model calls (and the pages they were for), tokens, seconds. */
interface Cost {
  pages: string;
  pagesRead: number;
  modelCalls: number;
  pagesWithModelCalls: number;
  tokensIn: number;
  tokensOut: number;
  seconds: number;
  /**
   * With the oracle: model calls by the kind of page they were for and the fields asked ("detail: title, views"), so a
   * run shows which fields on which pages still send pages to the model.
   */
  asked?: Record<string, number>;
}

/** The whole listing against a batch job of the pages it read. */
interface Throughput {
  listing: { pages: number; seconds: number; pagesPerSecond: number };
  batch: BatchRun & { pagesPerSecond: number; modelCalls: number };
  /** Listing pages per second over the batch's. */
  ratio: number;
}

interface Run {
  mode: string;
  seconds: number;
  sites: SiteScore[];
  cost: Record<string, Cost>;
  throughput?: Record<string, Throughput>;
}

const cases = (await readFile(path.join(splitDir, "cases.jsonl"), "utf8"))
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as MultipageCase);
const loadBefore = loadavg()[0]!;
const oracle = values.llm ? await startOracle(values.oracle, path.join(splitDir, "oracle-cases.jsonl")) : undefined;
const sites = await serveSites(path.join(tools, "serve_sites.py"), splitDir);
const { mapping } = sites;
const output: string[] = [];
const stack = await startThrowawayStack({
  onOutput: (service, line) => output.push(`${service}: ${line}`),
  env: {
    ...llmEnv(oracle && { baseUrl: oracle.baseUrl, model: "oracle" }),
    WINNOW_EGRESS_ALLOW: Object.values(mapping)
      .map((origin) => new URL(origin).host)
      .join(","),
    REQUEST_TIMEOUT_MS: String(LISTING_TIMEOUT_MS),
    MAX_LISTING_PAGES: String(Math.max(...cases.map((c) => c.max_pages))),
  },
  // The run takes minutes anyway; on a machine other work loads, the services take longer than usual to start.
  readyTimeoutMs: 600_000,
}).catch(async (error: Error) => {
  sites.stop();
  await oracle?.stop();
  throw new Error(`${error.message}\n${output.slice(-30).join("\n")}`);
});
const auth = promiseClient(
  createClient(AuthServiceClient, `127.0.0.1:${stack.ports.auth}`, stack.callerTokens.gateway),
);
/** A fresh account: its own templates and cache. */
const newKey = async () =>
  (await auth.createAccount({ email: `${crypto.randomUUID()}@bench.example`, password: "" })).apiKey;
const runs: Run[] = [];
try {
  runs.push(await runCases("pages: 1", await newKey(), () => ({})));
  runs.push(
    await runCases(
      "whole listing",
      await newKey(),
      (item) => ({ pages: item.max_pages, details: item.follow_details }),
      await newKey(),
    ),
  );
} finally {
  auth.grpc.close();
  await stack.stop();
  sites.stop();
  await oracle?.stop();
}
const load = { before: loadBefore, after: loadavg()[0]!, cores: cpus().length };

const engine = oracle ? "oracle (model) with templates" : "builtin";
for (const run of runs) {
  console.log(`\n${run.mode}, ${engine}: ${run.seconds.toFixed(1)} s`);
  console.log(
    `${"site".padEnd(16)} ${"records".padStart(10)} ${"extra".padStart(6)} ${"dup".padStart(5)} ${"P".padStart(6)} ${"R".padStart(6)} ${"F1".padStart(6)} ${"detail F1".padStart(9)} ${"model calls".padStart(16)} ${"tokens".padStart(9)}  pages read`,
  );
  for (const site of run.sites) {
    const cost = run.cost[site.site];
    const cells = [
      site.site.padEnd(16),
      `${site.found}/${site.expected}`.padStart(10),
      String(site.extra).padStart(6),
      String(site.duplicates).padStart(5),
      site.precision.toFixed(3).padStart(6),
      site.recall.toFixed(3).padStart(6),
      site.f1.toFixed(3).padStart(6),
      (site.detailF1 === undefined ? "-" : site.detailF1.toFixed(3)).padStart(9),
      (cost ? `${cost.modelCalls} (${cost.pagesWithModelCalls}/${cost.pagesRead} p)` : "").padStart(16),
      (cost ? String(cost.tokensIn + cost.tokensOut) : "").padStart(9),
    ];
    console.log(`${cells.join(" ")}  ${cost?.pages ?? ""}`);
    for (const [asked, count] of Object.entries(cost?.asked ?? {}))
      console.log(`${"".padEnd(16)} model calls on ${asked}: ${count}`);
  }
  if (!run.throughput) continue;
  console.log(
    `\nthroughput, the same pages as a batch job (load average ${load.before.toFixed(1)} → ${load.after.toFixed(1)}, ${load.cores} cores)`,
  );
  console.log(
    "site             | listing pages      s  pages/s | batch pages      s  pages/s  failed  model calls | ratio",
  );
  for (const [site, t] of Object.entries(run.throughput)) {
    console.log(
      `${site.padEnd(16)} | ${String(t.listing.pages).padStart(13)} ${t.listing.seconds.toFixed(1).padStart(6)} ${t.listing.pagesPerSecond.toFixed(2).padStart(8)} | ${String(t.batch.pages).padStart(11)} ${t.batch.seconds.toFixed(1).padStart(6)} ${t.batch.pagesPerSecond.toFixed(2).padStart(8)} ${String(t.batch.failed).padStart(7)} ${String(t.batch.modelCalls).padStart(12)} | ${t.ratio.toFixed(2)}`,
    );
  }
}
const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
await writeFile(
  path.join(resultsDir, oracle ? "listing-llm.json" : "listing.json"),
  `${JSON.stringify({ split: path.basename(splitDir), engine, load, runs }, null, 2)}\n`,
);

/** Every case, one at a time, under `key`; with `batchKey`, each listing's pages then again as a batch job. */
async function runCases(
  mode: string,
  key: string,
  options: (item: MultipageCase) => Record<string, unknown>,
  batchKey?: string,
): Promise<Run> {
  const started = performance.now();
  const lines: string[] = [];
  const cost: Record<string, Cost> = {};
  const throughput: Record<string, Throughput> = {};
  for (const item of cases) {
    const calls = await modelCalls(oracle);
    const asked = sites.requested.length;
    const scrapeStarted = performance.now();
    const response = await fetch(`${stack.gatewayUrl}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ url: mapping[item.site] + item.start_path, schema: item.schema, options: options(item) }),
      signal: AbortSignal.timeout(LISTING_TIMEOUT_MS + 10_000),
      dispatcher: patient,
    } as RequestInit);
    const body = (await response.json()) as Record<string, unknown>;
    const seconds = (performance.now() - scrapeStarted) / 1000;
    const pages = response.headers.get("winnow-pages") ?? "listing=1";
    const made = await calls.since();
    cost[item.site] = {
      pages,
      pagesRead: pagesRead(pages),
      modelCalls: made.length,
      pagesWithModelCalls: new Set(made.map((call) => call.case)).size,
      tokensIn: Number(response.headers.get("x-winnow-tokens-in") ?? 0),
      tokensOut: Number(response.headers.get("x-winnow-tokens-out") ?? 0),
      seconds,
      ...(oracle ? { asked: askedOf(made) } : {}),
    };
    lines.push(JSON.stringify({ id: item.id, status: response.status, body }));
    if (batchKey && response.ok) {
      const read = pagesOfListing(sites.requested.slice(asked), Number(/listing=(\d+)/.exec(pages)?.[1] ?? 1));
      const batchCalls = await modelCalls(oracle);
      const batch = await batchOf(stack.gatewayUrl, batchKey, item.schema, recordSchema(item.schema), read);
      const listing = {
        pages: cost[item.site]!.pagesRead,
        seconds,
        pagesPerSecond: cost[item.site]!.pagesRead / seconds,
      };
      const batchRate = batch.pages / batch.seconds;
      throughput[item.site] = {
        listing,
        batch: { ...batch, pagesPerSecond: batchRate, modelCalls: (await batchCalls.since()).length },
        ratio: listing.pagesPerSecond / batchRate,
      };
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const scores = await score(lines);
  return { mode, seconds, sites: scores, cost, ...(batchKey ? { throughput } : {}) };
}

/** The model calls made from now on; none without the oracle. */
async function modelCalls(model: Oracle | undefined): Promise<{ since(): Promise<OracleCall[]> }> {
  const before = model ? (await model.calls()).length : 0;
  return { since: async () => (model ? (await model.calls()).slice(before) : []) };
}

/** Model calls counted by page kind (the oracle case's `multipage/<site>/<kind>/…`) and the fields asked. */
function askedOf(calls: OracleCall[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const call of calls) {
    const kind = call.case.split("/")[2] ?? "page";
    const key = `${kind}: ${[...call.fields_asked].sort().join(", ")}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The schema of the records of the schema's list (the corpus's schemas have one). */
function recordSchema(schema: Record<string, unknown>): unknown {
  return Object.values(schema)
    .map((value) => itemSchemaOf(value as SchemaValue))
    .find((item) => item !== undefined);
}

/** Listing pages and records' own pages read, from Winnow-Pages (`listing=12, details=136, failed=1`). */
function pagesRead(header: string): number {
  const count = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(header)?.[1] ?? 0);
  return count("listing") + count("details");
}

async function score(lines: string[]): Promise<SiteScore[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "winnow-listing-"));
  try {
    const predictions = path.join(dir, "pred.jsonl");
    await writeFile(predictions, `${lines.join("\n")}\n`);
    const { stdout } = await promisify(execFile)("python3", [
      path.join(tools, "score_multipage.py"),
      path.join(splitDir, "cases.jsonl"),
      predictions,
    ]);
    const names = new Set(cases.map((item) => item.site));
    return scorerTable(stdout).filter((s) => s.site === "ALL" || names.has(s.site));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench:listing [split-dir]`: the multi-page corpus (by default ../shared/corpus/multipage) through a
 * throwaway stack (builtin engine), each site served on loopback by the corpus's own server (serve_sites.py), each
 * case asked twice in the same run: as one page (`pages: 1`, the answer before whole listings) and as the whole
 * listing (`pages: max_pages`, `details: follow_details`). Both are scored record by record by the corpus's
 * scorer (score_multipage.py: records found, extra, duplicates, pages covered, field and detail-field P/R/F1 per
 * site); the bench adds pages read (Winnow-Pages) and wall time. Prints a table and writes
 * bench/results/listing.json.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { type SiteScore, scorerTable } from "./multipage-score.js";

const splitDir = path.resolve(process.argv[2] ?? path.join(REPO_ROOT, "../shared/corpus/multipage"));
const tools = path.join(REPO_ROOT, "../shared/tools");
/** The first of the sites' consecutive loopback ports (BENCH_SITES_PORT). */
const SITES_PORT = process.env.BENCH_SITES_PORT ?? "18700";
/** A whole listing with every record's page can take minutes; the stack's deadline is raised to match. */
const LISTING_TIMEOUT_MS = 600_000;

interface MultipageCase {
  id: string;
  site: string;
  start_path: string;
  max_pages: number;
  follow_details: boolean;
  schema: Record<string, unknown>;
}

interface Run {
  mode: string;
  seconds: number;
  pages: Record<string, string>;
  sites: SiteScore[];
}

const cases = (await readFile(path.join(splitDir, "cases.jsonl"), "utf8"))
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as MultipageCase);
const { server, mapping } = await serveSites();
const allow = Object.values(mapping)
  .map((origin) => new URL(origin).host)
  .join(",");
const stack = await startThrowawayStack({
  env: {
    WINNOW_EGRESS_ALLOW: allow,
    REQUEST_TIMEOUT_MS: String(LISTING_TIMEOUT_MS),
    MAX_LISTING_PAGES: String(Math.max(...cases.map((c) => c.max_pages))),
  },
});
const runs: Run[] = [];
try {
  runs.push(await runCases("pages: 1", () => ({})));
  runs.push(await runCases("whole listing", (item) => ({ pages: item.max_pages, details: item.follow_details })));
} finally {
  await stack.stop();
  server.kill();
}

for (const run of runs) {
  console.log(`\n${run.mode}: ${run.seconds.toFixed(1)} s`);
  console.log(
    `${"site".padEnd(16)} ${"records".padStart(10)} ${"extra".padStart(6)} ${"dup".padStart(5)} ${"P".padStart(6)} ${"R".padStart(6)} ${"F1".padStart(6)} ${"detail F1".padStart(9)}  pages read`,
  );
  for (const site of run.sites) {
    const cells = [
      site.site.padEnd(16),
      `${site.found}/${site.expected}`.padStart(10),
      String(site.extra).padStart(6),
      String(site.duplicates).padStart(5),
      site.precision.toFixed(3).padStart(6),
      site.recall.toFixed(3).padStart(6),
      site.f1.toFixed(3).padStart(6),
      (site.detailF1 === undefined ? "-" : site.detailF1.toFixed(3)).padStart(9),
    ];
    console.log(`${cells.join(" ")}  ${run.pages[site.site] ?? ""}`);
  }
}
const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
await writeFile(
  path.join(resultsDir, "listing.json"),
  `${JSON.stringify({ split: path.basename(splitDir), engine: "builtin", runs }, null, 2)}\n`,
);

async function runCases(mode: string, options: (item: MultipageCase) => Record<string, unknown>): Promise<Run> {
  const started = performance.now();
  const lines: string[] = [];
  const pages: Record<string, string> = {};
  for (const item of cases) {
    const response = await fetch(`${stack.gatewayUrl}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
      body: JSON.stringify({ url: mapping[item.site] + item.start_path, schema: item.schema, options: options(item) }),
      signal: AbortSignal.timeout(LISTING_TIMEOUT_MS + 10_000),
    });
    const body = (await response.json()) as unknown;
    pages[item.site] = response.headers.get("winnow-pages") ?? "listing=1";
    lines.push(JSON.stringify({ id: item.id, status: response.status, body }));
  }
  const seconds = (performance.now() - started) / 1000;
  const dir = await mkdtemp(path.join(tmpdir(), "winnow-listing-"));
  try {
    const predictions = path.join(dir, "pred.jsonl");
    await writeFile(predictions, `${lines.join("\n")}\n`);
    const { stdout } = await promisify(execFile)("python3", [
      path.join(tools, "score_multipage.py"),
      path.join(splitDir, "cases.jsonl"),
      predictions,
    ]);
    const bySite = new Map(cases.map((item) => [item.site, item]));
    return { mode, seconds, pages, sites: scorerTable(stdout).filter((s) => s.site === "ALL" || bySite.has(s.site)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The corpus's own server, every site on its own loopback port; its first line maps sites to origins. */
async function serveSites(): Promise<{ server: ChildProcess; mapping: Record<string, string> }> {
  const server = spawn("python3", [path.join(tools, "serve_sites.py"), splitDir, SITES_PORT], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: server.stdout! });
  for await (const line of lines) {
    lines.close();
    return { server, mapping: JSON.parse(line) as Record<string, string> };
  }
  throw new Error("serve_sites.py printed no mapping");
}

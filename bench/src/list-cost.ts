/**
 * `npm run bench:list-cost`: is reading a list linear in the page? Synthetic
 * listing pages (test/support/list-pages.ts: a shop's grid of n cards with a
 * name link, a price and a rating, and n records of labelled rows) at
 * doubling sizes go through the extraction as a worker runs it (the parse,
 * then the builtin engine, evidence and each value's status; templates off,
 * so each size is read afresh), in this process. It prints the time of each
 * size (wall and this process's CPU, which a machine busy with other work
 * disturbs less) and the CPU time's growth over the half size: about 2 is
 * linear, about 4 quadratic. The grid goes from LIST_COST_FROM records (default 1,875) to
 * LIST_COST_TO (30,000), the labelled rows from LIST_COST_ROWS_FROM records
 * (default: five sizes, the last just under 8 MB) up to 8 MB; doubling stops after a size costs more than LIST_COST_MAX_SECONDS (default
 * 60). JSON in bench/results/list-cost.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { loadPage, runExtraction, SchemaCache } from "@winnow/extractor";
import { createLogger } from "@winnow/platform";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { catalogueGrid, LIST_SCHEMA, labelledRows } from "@winnow/test-support/list-pages";
import { round } from "./format.js";

const FROM = Number(process.env.LIST_COST_FROM ?? 1_875);
const TO = Number(process.env.LIST_COST_TO ?? 30_000);
const MAX_MS = Number(process.env.LIST_COST_MAX_SECONDS ?? 60) * 1000;
/** The labelled-rows page at its largest: the size the issue found costly. */
const ROWS_MAX_BYTES = 8 * 1024 * 1024;

const logger = createLogger("bench", "silent");
const schemas = new SchemaCache();
const schemaJson = JSON.stringify(LIST_SCHEMA);

interface Size {
  records: number;
  bytes: number;
  parseMs: number;
  extractMs: number;
  /** This process's CPU time for the parse and the extraction. */
  cpuMs: number;
  /** Records the answer holds. */
  answered: number;
  /** This size's CPU time over the half size's; undefined for the first. */
  growth?: number;
}

async function measure(html: string): Promise<Omit<Size, "records" | "growth">> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const page = loadPage(html, "https://shop.example/catalogue");
  const parsed = performance.now();
  const { response } = await runExtraction(
    {
      schemaJson,
      fieldHints: {},
      fieldRules: {},
      schema: schemas.get(schemaJson),
      page,
      taskDescription: "",
      includeModelInput: false,
      evidence: true,
      llm: undefined,
      bounds: { signal: new AbortController().signal, deadline: undefined },
      templateScope: undefined,
      pageWarnings: [],
      wantNextPage: false,
      knownFields: [],
    },
    {
      schemas,
      prompts: { pageTokens: 24_000, maxParts: 8, maxParallel: 4, grounding: "warn" },
      hybrid: "proven",
      templates: undefined,
      logger,
    },
  );
  const done = performance.now();
  const used = process.cpuUsage(cpu);
  const products = (JSON.parse(response.dataJson) as { products: unknown[] | null }).products;
  return {
    bytes: Buffer.byteLength(html),
    parseMs: round(parsed - started),
    extractMs: round(done - parsed),
    cpuMs: round((used.user + used.system) / 1000),
    answered: products?.length ?? 0,
  };
}

/** Each doubling of n from `from` while `more(n, html)` holds and the last size cost less than MAX_MS. */
async function doubling(
  pageOf: (n: number) => string,
  from: number,
  more: (n: number, html: string) => boolean,
): Promise<Size[]> {
  const sizes: Size[] = [];
  for (let n = from; ; n *= 2) {
    const html = pageOf(n);
    if (!more(n, html)) break;
    const size: Size = { records: n, ...(await measure(html)) };
    const last = sizes.at(-1);
    if (last) size.growth = size.cpuMs / last.cpuMs;
    sizes.push(size);
    console.log(
      `  ${String(n).padStart(6)} records  ${(size.bytes / 1024).toFixed(0).padStart(6)} KB  parse ${String(size.parseMs).padStart(8)} ms  extract ${String(size.extractMs).padStart(9)} ms  CPU ${String(size.cpuMs).padStart(9)} ms  ${size.growth === undefined ? "" : `x${size.growth.toFixed(2)}`}`,
    );
    if (size.parseMs + size.extractMs > MAX_MS) break;
  }
  return sizes;
}

// Warm-up: the extractor's modules compile their hot paths on a small page first.
await measure(catalogueGrid(200));
console.log(`Reading lists at doubling sizes (${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})`);
console.log("catalogue grid (name link, price, rating):");
const grid = await doubling(catalogueGrid, FROM, (n) => n <= TO);
console.log("labelled rows (Name: / Price: / Rating: lines):");
// By default five sizes, the last just under 8 MB.
const perRecord = Buffer.byteLength(labelledRows(1_000)) / 1_000;
const rowsFrom = Number(process.env.LIST_COST_ROWS_FROM ?? Math.floor(ROWS_MAX_BYTES / perRecord / 16));
const rows = await doubling(labelledRows, rowsFrom, (_, html) => Buffer.byteLength(html) <= ROWS_MAX_BYTES);

const growths = [...grid, ...rows].flatMap((size) => (size.growth === undefined ? [] : [size.growth]));
console.log(
  `\ngrowth per doubling: median x${growths.sort((a, b) => a - b)[Math.floor(growths.length / 2)]?.toFixed(2)}, largest x${Math.max(...growths).toFixed(2)} (x2 is linear, x4 quadratic)`,
);
const out = path.join(REPO_ROOT, "bench/results/list-cost.json");
await mkdir(path.dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), grid, rows }, null, 2)}\n`,
);
console.log(`wrote ${path.relative(process.cwd(), out)}`);

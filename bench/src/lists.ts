/**
 * `npm run bench:lists [corpus-dir] [--llm]`: runs every case of the listing
 * corpus (by default ../shared/corpus/lists) through the extractor over
 * gRPC, scores the answers record by record by the corpus README's rules
 * (bench/src/list-score.ts), prints records found, extra records and
 * precision, recall and F1 per site and per field, with the extraction
 * times, and writes bench/results/lists.json.
 *
 * The builtin engine's own time is measured apart from the request, in this
 * process on the parsed page (the median of a few runs per page), so that
 * the cost of reading lists is seen without parsing and transport: p50 and
 * p95 over the pages and the figure of the largest page.
 *
 * It also measures what each value's status is worth on records (right and
 * wrong values by status), and the builtin engine's reliability per evidence
 * source on record values across sites, which `--write-calibration` writes
 * for the extractor to state (services/extractor/src/flow/record-reliability.ts;
 * rebuild to apply).
 *
 * The builtin engine also reads every page scrambled (bench/src/scramble.ts: every class and id replaced by a
 * meaningless token, as sites with hashed or utility classes look), in the same run, so a reader that leans on the
 * words of class names shows it here; `--skip-scrambled` leaves that run out.
 *
 * `--llm` adds the model path with the corpus's perfect reader (`--oracle`,
 * by default ../shared/tools/oracle_llm.py) as the model, beside the
 * builtin engine's figures, and writes bench/results/lists-llm.json.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { extractBuiltin, extractRecords, loadPage, reliabilityOf, SURE_FROM } from "@winnow/extractor";
import { parseSchema } from "@winnow/platform";
import { Engine } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { type Case, type PageServer, readCases, servePages } from "./corpus.js";
import { fmt, pct, percentile, round } from "./format.js";
import { addScore, emptyScore, itemSchemaOf, type RecordScore, scoreRecords, sumFields } from "./list-score.js";
import { startOracle } from "./oracle.js";
import { acrossSites, writeReliabilityTable } from "./reliability.js";
import { type Extraction, type Runner, startExtractorRunner } from "./runners.js";
import { type Counts, type Metrics, metrics } from "./score.js";
import { scrambleNames } from "./scramble.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    llm: { type: "boolean", default: false },
    oracle: { type: "string", default: path.join(REPO_ROOT, "../shared/tools/oracle_llm.py") },
    concurrency: { type: "string", default: "2" },
    runs: { type: "string", default: "3" },
    "write-calibration": { type: "boolean", default: false },
    "skip-scrambled": { type: "boolean", default: false },
  },
});
const corpusDir = path.resolve(positionals[0] ?? path.join(REPO_ROOT, "../shared/corpus/lists"));
const concurrency = Math.max(1, Number(values.concurrency) || 1);
const runs = Math.max(1, Number(values.runs) || 1);

if (!existsSync(path.join(corpusDir, "cases.jsonl"))) {
  console.error(
    `No corpus at ${corpusDir} (cases.jsonl missing); pass the corpus folder: npm run bench:lists -- <corpus-dir>`,
  );
  process.exit(2);
}
if (values.llm && !existsSync(values.oracle)) {
  console.error(`No oracle at ${values.oracle}; pass its path: npm run bench:lists -- --llm --oracle <oracle_llm.py>`);
  process.exit(2);
}

const cases = await readCases(corpusDir);
const pages = await servePages(corpusDir);
const scrambledPages = values["skip-scrambled"] ? undefined : await servePages(corpusDir, scrambleNames);
console.log(`${cases.length} listing pages from ${corpusDir}, through the extractor over gRPC`);

type Result = { item: Case; extraction: Extraction };
let builtin: Result[];
let scrambled: Result[] | undefined;
let model: Result[] | undefined;
try {
  const alone = await startExtractorRunner();
  try {
    builtin = await runAll(alone, Engine.ENGINE_BUILTIN, pages);
    if (scrambledPages) scrambled = await runAll(alone, Engine.ENGINE_BUILTIN, scrambledPages);
  } finally {
    await alone.stop();
  }
  if (values.llm) {
    const oracle = await startOracle(values.oracle, path.join(corpusDir, "cases.jsonl"));
    const runner = await startExtractorRunner({ baseUrl: oracle.baseUrl, model: "oracle" });
    model = await runAll(runner, Engine.ENGINE_UNSPECIFIED, pages, 1).finally(async () => {
      await runner.stop();
      await oracle.stop();
    });
  }
} finally {
  await pages.close();
  await scrambledPages?.close();
}

async function runAll(target: Runner, engine: Engine, server: PageServer, workers = concurrency): Promise<Result[]> {
  const done: Result[] = new Array<Result>(cases.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < cases.length) {
        const index = next++;
        const item = cases[index]!;
        const original =
          item.url && /^https?:\/\//.test(item.url) && URL.canParse(item.url) ? item.url : `https://${item.site}/`;
        done[index] = { item, extraction: await target.run(server.urlOf(item), item.schema, original, engine) };
      }
    }),
  );
  return done;
}

/** One record value the builtin engine answered: its site, source, whether the engine was sure, and whether right. */
type RecordAnswer = { site: string; cell: string; sure: boolean; right: boolean };

interface Scores {
  answers: RecordAnswer[];
  /** The record values by their status (evidence), right and wrong: what each status is worth on lists. */
  byStatus: Map<string, { right: number; wrong: number }>;
  bySite: Map<string, RecordScore>;
  byField: Map<string, Counts>;
  overall: RecordScore;
  perCase: {
    id: string;
    site: string;
    expected: number;
    predicted: number;
    found: number;
    extra: number;
    fields: Record<string, Counts>;
    ms: number;
    error?: string;
  }[];
}

function score(run: Result[]): Scores {
  const scores: Scores = {
    answers: [],
    byStatus: new Map(),
    bySite: new Map(),
    byField: new Map(),
    overall: emptyScore(),
    perCase: [],
  };
  for (const { item, extraction } of run) {
    const [field, schema] = Object.entries(item.schema)[0]!;
    const itemSchema = itemSchemaOf(schema);
    if (!itemSchema) continue;
    const judge = (record: number, name: string, right: boolean) => {
      const evidence = extraction.evidence.get(`/${field}/${record}/${name}`);
      if (evidence) {
        const cell = `${evidence.source} record`;
        // As the quality benchmark reads it: a stated confidence at SURE_FROM, or at the reliability when lower.
        const sure = evidence.confidence >= Math.min(SURE_FROM, reliabilityOf(evidence.source, "record"));
        scores.answers.push({ site: item.site, cell, sure, right });
      }
      const status = evidence?.status || "none";
      const row = scores.byStatus.get(status) ?? { right: 0, wrong: 0 };
      row[right ? "right" : "wrong"] += 1;
      scores.byStatus.set(status, row);
    };
    const result = scoreRecords(itemSchema, item.expected[field], extraction.data?.[field] ?? null, judge);
    addScore(scores.overall, result);
    const site = scores.bySite.get(item.site) ?? emptyScore();
    scores.bySite.set(item.site, site);
    addScore(site, result);
    for (const [name, counts] of result.fields) {
      const total = scores.byField.get(name) ?? { tp: 0, fp: 0, fn: 0 };
      scores.byField.set(name, total);
      total.tp += counts.tp;
      total.fp += counts.fp;
      total.fn += counts.fn;
    }
    scores.perCase.push({
      id: item.id,
      site: item.site,
      expected: result.expected,
      predicted: result.predicted,
      found: result.found,
      extra: result.extra,
      fields: Object.fromEntries(result.fields),
      ms: round(extraction.ms),
      ...(extraction.error ? { error: extraction.error } : {}),
    });
  }
  return scores;
}

function printScores(title: string, scores: Scores): void {
  const header = `${"".padEnd(26)} ${"found".padStart(11)} ${"extra".padStart(6)} ${"prec".padStart(6)} ${"recall".padStart(6)} ${"F1".padStart(6)} ${"tp".padStart(5)} ${"fp".padStart(5)} ${"fn".padStart(5)}`;
  const row = (name: string, s: RecordScore) =>
    `${name.padEnd(26)} ${`${s.found}/${s.expected}`.padStart(11)} ${String(s.extra).padStart(6)} ${figures(metrics(sumFields(s)))}`;
  console.log(`\n${title}: per site\n${header}`);
  for (const [site, s] of [...scores.bySite].sort(([a], [b]) => a.localeCompare(b))) console.log(row(site, s));
  console.log(row("overall", scores.overall));
  console.log(
    `  records found ${pct(scores.overall.found, scores.overall.expected)}, extra records ${pct(scores.overall.extra, scores.overall.expected)} of those expected`,
  );
  console.log(
    `\n${title}: per field\n${"".padEnd(26)} ${"prec".padStart(6)} ${"recall".padStart(6)} ${"F1".padStart(6)} ${"tp".padStart(5)} ${"fp".padStart(5)} ${"fn".padStart(5)}`,
  );
  for (const [field, counts] of [...scores.byField].sort(([a], [b]) => a.localeCompare(b)))
    console.log(`${field.padEnd(26)} ${figures(metrics(counts))}`);
  const status = statusFigures(scores);
  console.log(`\n${title}: record values by status\n${"".padEnd(26)} ${"right".padStart(6)} ${"wrong".padStart(6)}`);
  for (const [name, row] of Object.entries(status.rows))
    console.log(`${name.padEnd(26)} ${String(row.right).padStart(6)} ${String(row.wrong).padStart(6)}`);
  console.log(
    `  found precision ${status.foundPrecision.toFixed(3)}; right values found ${pct(status.rightFound * 1000, 1000)}; wrong values not found ${pct(status.wrongNotFound * 1000, 1000)}`,
  );
}

/** What `found` is worth on record values: its precision, and the shares of right and wrong values it covers. */
function statusFigures(scores: Scores) {
  const rows = Object.fromEntries([...scores.byStatus].sort(([a], [b]) => a.localeCompare(b)));
  const found = scores.byStatus.get("found") ?? { right: 0, wrong: 0 };
  const all = [...scores.byStatus.values()];
  const right = all.reduce((sum, row) => sum + row.right, 0);
  const wrong = all.reduce((sum, row) => sum + row.wrong, 0);
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((1000 * a) / b) / 1000 : 0);
  return {
    rows,
    foundPrecision: ratio(found.right, found.right + found.wrong),
    rightFound: ratio(found.right, right),
    wrongNotFound: ratio(wrong - found.wrong, wrong),
  };
}

const builtinScores = score(builtin);
printScores("Builtin engine", builtinScores);
const recordCells = [...new Set(builtinScores.answers.map((a) => a.cell))].sort().map((cell) => {
  const mine = builtinScores.answers.filter((a) => a.cell === cell);
  return { cell, answers: mine.length, ...acrossSites(mine) };
});
console.log(`\nBuiltin engine reliability on record values, across sites (per evidence source)`);
for (const row of recordCells)
  console.log(
    `${row.cell.padEnd(26)} ${String(row.sites).padStart(3)} sites ${String(row.answers).padStart(6)} values  site-mean precision ${fmt(row.precision)}  stated ${fmt(row.reliability)}`,
  );
if (values["write-calibration"]) {
  const table = path.join(REPO_ROOT, "services/extractor/src/flow/record-reliability.ts");
  await writeReliabilityTable(table, recordCells, path.relative(REPO_ROOT, corpusDir), {
    constant: "RECORD_RELIABILITY",
    holds:
      'Per "<evidence source> record": the cross-site reliability of values in a list\'s records (prefill-calibration.ts).',
    command: "npm run bench:lists -- --write-calibration",
  });
  console.log(`Wrote ${path.relative(REPO_ROOT, table)}`);
}
const scrambledScores = scrambled && score(scrambled);
if (scrambledScores) {
  printScores("Builtin engine, every class and id scrambled", scrambledScores);
  const line = (name: string, s: RecordScore) => {
    const m = metrics(sumFields(s));
    return `${name.padEnd(26)} records ${pct(s.found, s.expected).padStart(7)}  P ${fmt(m.precision)}  F1 ${fmt(m.f1)}`;
  };
  console.log(
    `\nBuiltin engine, as they are and scrambled\n${line("as they are", builtinScores.overall)}\n${line("scrambled", scrambledScores.overall)}`,
  );
}
const modelScores = model && score(model);
if (modelScores) printScores("Model path (oracle reader, hybrid pre-fill on)", modelScores);

const errors = [...builtin, ...(scrambled ?? []), ...(model ?? [])].flatMap(({ item, extraction }) =>
  extraction.error ? [{ id: item.id, error: extraction.error }] : [],
);
if (errors.length > 0) {
  console.log(`\n${errors.length} requests failed (scored as no records):`);
  for (const e of errors.slice(0, 20)) console.log(`  ${e.id}: ${e.error}`);
}

// Times: the request over gRPC, and the builtin engine alone on the parsed page.
const requestTimes = builtin.map(({ extraction }) => extraction.ms).sort((a, b) => a - b);
const engineTimes: { id: string; bytes: number; parseMs: number; engineMs: number; listMs: number }[] = [];
for (const item of cases) {
  const html = await readFile(path.join(corpusDir, item.page), "utf8");
  const tree = parseSchema(item.schema);
  const field = tree.fields[0]!;
  const url = item.url && /^https?:\/\//.test(item.url) ? item.url : `https://${item.site}/`;
  const parse: number[] = [];
  const engine: number[] = [];
  const list: number[] = [];
  // Each run on a page parsed afresh: nothing read on an earlier run is remembered.
  for (let run = 0; run < runs; run += 1) {
    let started = performance.now();
    const page = loadPage(html, url);
    parse.push(performance.now() - started);
    started = performance.now();
    extractBuiltin(tree, page);
    engine.push(performance.now() - started);
    if (field.node.kind === "array" && field.node.items.kind === "object") {
      const again = loadPage(html, url);
      started = performance.now();
      extractRecords(again.$, again.baseUrl, field.name, field.node.items);
      list.push(performance.now() - started);
    }
  }
  engineTimes.push({
    id: item.id,
    bytes: Buffer.byteLength(html),
    parseMs: round(median(parse)),
    engineMs: round(median(engine)),
    listMs: round(median(list)),
  });
}
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)), max: round(sorted.at(-1) ?? 0) };
};
const largest = engineTimes.reduce((a, b) => (b.bytes > a.bytes ? b : a));
const timing = {
  requestMs: spread(requestTimes),
  builtinEngineMs: spread(engineTimes.map((t) => t.engineMs)),
  listExtractionMs: spread(engineTimes.map((t) => t.listMs)),
  largestPage: {
    id: largest.id,
    kb: Math.round(largest.bytes / 1024),
    parseMs: largest.parseMs,
    engineMs: largest.engineMs,
    listMs: largest.listMs,
  },
};
console.log(
  `\nTime per page, extraction request over gRPC (parse and engine): p50 ${timing.requestMs.p50} ms, p95 ${timing.requestMs.p95} ms, max ${timing.requestMs.max} ms`,
);
console.log(
  `Builtin engine on the parsed page (median of ${runs} runs): p50 ${timing.builtinEngineMs.p50} ms, p95 ${timing.builtinEngineMs.p95} ms, max ${timing.builtinEngineMs.max} ms`,
);
console.log(
  `List extraction alone (records: segmentation, choice, fields): p50 ${timing.listExtractionMs.p50} ms, p95 ${timing.listExtractionMs.p95} ms, max ${timing.listExtractionMs.max} ms`,
);
console.log(
  `Largest page ${largest.id} (${timing.largestPage.kb} KB): list extraction ${largest.listMs} ms, builtin engine ${largest.engineMs} ms, parse ${largest.parseMs} ms`,
);

const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
const output = path.join(resultsDir, `lists${model ? "-llm" : ""}.json`);
await writeFile(
  output,
  `${JSON.stringify(
    {
      // Relative to the repository, as the corpus is named beside it.
      corpus: path.relative(REPO_ROOT, corpusDir),
      cases: cases.length,
      builtin: summary(builtinScores),
      ...(scrambledScores ? { builtinScrambled: summary(scrambledScores) } : {}),
      recordReliability: recordCells,
      ...(modelScores ? { model: { reader: "oracle", ...summary(modelScores) } } : {}),
      timing,
      engineTimes,
      errors,
      perCase: { builtin: builtinScores.perCase, ...(modelScores ? { model: modelScores.perCase } : {}) },
    },
    null,
    2,
  )}\n`,
);
console.log(`\nWrote ${path.relative(REPO_ROOT, output)}`);

function summary(scores: Scores) {
  const records = (s: RecordScore) => ({
    expected: s.expected,
    predicted: s.predicted,
    found: s.found,
    extra: s.extra,
  });
  return {
    records: records(scores.overall),
    overall: metrics(sumFields(scores.overall)),
    status: statusFigures(scores),
    sites: Object.fromEntries(
      [...scores.bySite].map(([site, s]) => [site, { ...records(s), ...metrics(sumFields(s)) }]),
    ),
    fields: Object.fromEntries([...scores.byField].map(([field, counts]) => [field, metrics(counts)])),
  };
}

function figures(m: Metrics): string {
  return `${fmt(m.precision)} ${fmt(m.recall)} ${fmt(m.f1)} ${String(m.tp).padStart(5)} ${String(m.fp).padStart(5)} ${String(m.fn).padStart(5)}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * `npm run bench:quality [corpus-dir] [--stack]`: runs every case of an
 * extraction corpus through Winnow's builtin engine, scores the answers by
 * the corpus README's rules, prints precision, recall and F1 per corpus, per
 * field and overall with extraction times, and writes bench/results/quality.json.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../../scripts/dist/stack.js";
import { isComplete } from "../../services/extractor/dist/hybrid.js";
import { readCases, servePages, type Case } from "./corpus.js";
import { addEvidence, DOUBT_BELOW, emptyEvidenceCounts } from "./evidence-figures.js";
import { startExtractorRunner, startStackRunner, type Extraction } from "./runners.js";
import { addOutcome, labelsComplete, metrics, scoreField, type Counts, type Metrics } from "./score.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stack: { type: "boolean", default: false },
    concurrency: { type: "string", default: "2" },
  },
});
const corpusDir = path.resolve(positionals[0] ?? path.join(REPO_ROOT, "../shared/corpus/dev"));
const concurrency = Math.max(1, Number(values.concurrency) || 1);
const mode = values.stack ? "stack" : "extractor";

if (!existsSync(path.join(corpusDir, "cases.jsonl"))) {
  console.error(`No corpus at ${corpusDir} (cases.jsonl missing); pass the corpus folder: npm run bench:quality -- <corpus-dir>`);
  process.exit(2);
}
const cases = await readCases(corpusDir);
const pages = await servePages(corpusDir);
const runner = values.stack ? await startStackRunner(pages.hostPort) : await startExtractorRunner();
console.log(`${cases.length} cases from ${corpusDir}, through the ${mode === "stack" ? "whole stack over HTTP" : "extractor over gRPC"} (builtin engine)`);

const results: { item: Case; extraction: Extraction }[] = [];
try {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < cases.length) {
        const item = cases[next++]!;
        results.push({ item, extraction: await runner.run(pages.urlOf(item), item.schema, originalUrl(item) ?? pages.urlOf(item)) });
      }
    }),
  );
} finally {
  await runner.stop();
  await pages.close();
}

const byCorpus = new Map<string, Counts>();
const byField = new Map<string, Counts>();
const overall: Counts = { tp: 0, fp: 0, fn: 0 };
const evidenceCounts = emptyEvidenceCounts();
const errors: { id: string; error: string }[] = [];
const perCase = results.map(({ item, extraction }) => {
  if (extraction.error) errors.push({ id: item.id, error: extraction.error });
  const outcomes: Record<string, string> = {};
  for (const [field, schema] of Object.entries(item.schema)) {
    const outcome = scoreField(field, schema, item.expected[field] ?? null, extraction.data?.[field] ?? null, labelsComplete(item.corpus, field));
    if (!outcome) continue;
    outcomes[field] = outcome;
    addEvidence(evidenceCounts, outcome, field, extraction.data?.[field] ?? null, extraction.evidence);
    for (const counts of [overall, countsFor(byCorpus, item.corpus), countsFor(byField, `${item.corpus} ${field}`)]) addOutcome(counts, outcome);
  }
  // What was expected and predicted, for the fields that were not right: what to look at next.
  const misses = Object.fromEntries(
    Object.entries(outcomes).filter(([, outcome]) => outcome !== "tp").map(([field]) => [field, { expected: item.expected[field], predicted: extraction.data?.[field] ?? null }]),
  );
  return { id: item.id, ms: round(extraction.ms), htmlBytes: extraction.htmlBytes, error: extraction.error, outcomes, misses };
});

/** The case's original address when it is one (some cases give only a site name). */
function originalUrl(item: Case): string | undefined {
  return item.url && /^https?:\/\//.test(item.url) && URL.canParse(item.url) ? item.url : undefined;
}

function countsFor(map: Map<string, Counts>, key: string): Counts {
  let counts = map.get(key);
  if (!counts) map.set(key, (counts = { tp: 0, fp: 0, fn: 0 }));
  return counts;
}

const row = (name: string, m: Metrics) =>
  `${name.padEnd(48)} ${fmt(m.precision)} ${fmt(m.recall)} ${fmt(m.f1)} ${String(m.tp).padStart(5)} ${String(m.fp).padStart(5)} ${String(m.fn).padStart(5)}`;
const header = `${"".padEnd(48)} ${"prec".padStart(6)} ${"recall".padStart(6)} ${"F1".padStart(6)} ${"tp".padStart(5)} ${"fp".padStart(5)} ${"fn".padStart(5)}`;
const sortedFields = [...byField].sort(([a], [b]) => a.localeCompare(b));
console.log(`\nPer field\n${header}`);
for (const [key, counts] of sortedFields) console.log(row(key, metrics(counts)));
console.log(`\nPer corpus\n${header}`);
for (const [key, counts] of [...byCorpus].sort(([a], [b]) => a.localeCompare(b))) console.log(row(key, metrics(counts)));
console.log(row("overall", metrics(overall)));

// Hybrid mode asks the model only for the fields the builtin engine leaves null (services/extractor/src/hybrid.ts).
const fieldCount = results.reduce((sum, { item }) => sum + Object.keys(item.schema).length, 0);
const prefilled = results.map(({ item, extraction }) => Object.keys(item.schema).filter((field) => isComplete(extraction.data?.[field])).length);
const hybrid = {
  fieldsPrefilled: prefilled.reduce((a, b) => a + b, 0),
  fields: fieldCount,
  pagesWithoutModelCall: results.filter(({ item }, i) => prefilled[i] === Object.keys(item.schema).length).length,
  pages: results.length,
};
console.log(
  `\nHybrid pre-fill: ${hybrid.fieldsPrefilled} of ${hybrid.fields} fields (${pct(hybrid.fieldsPrefilled, hybrid.fields)}) answered without the model; ` +
    `${hybrid.pagesWithoutModelCall} of ${hybrid.pages} pages (${pct(hybrid.pagesWithoutModelCall, hybrid.pages)}) need no model call`,
);

// Evidence (gRPC mode only: the stack runner asks for the data alone).
const evidence = {
  correctValues: evidenceCounts.correctValues,
  correctWithValueInText: round((100 * evidenceCounts.contained) / Math.max(1, evidenceCounts.correctValues)) / 100,
  wrongFields: evidenceCounts.wrongFields,
  wrongFlaggedBelow06: round((100 * evidenceCounts.flagged) / Math.max(1, evidenceCounts.wrongFields)) / 100,
};
if (mode === "extractor") {
  console.log(
    `\nEvidence: ${evidenceCounts.contained} of ${evidenceCounts.correctValues} correct values (${pct(evidenceCounts.contained, evidenceCounts.correctValues)}) have the value in their evidence text; ` +
      `${evidenceCounts.flagged} of ${evidenceCounts.wrongFields} wrong fields (${pct(evidenceCounts.flagged, evidenceCounts.wrongFields)}) are flagged by a confidence below ${DOUBT_BELOW}`,
  );
}

const times = perCase.map((c) => c.ms).sort((a, b) => a - b);
const sizes = perCase.flatMap((c) => (c.htmlBytes === undefined ? [] : [c.htmlBytes])).sort((a, b) => a - b);
const timing = { p50Ms: round(percentile(times, 0.5)), p95Ms: round(percentile(times, 0.95)), maxMs: round(times.at(-1) ?? 0) };
const pageKb = sizes.length > 0 ? { p50: Math.round(percentile(sizes, 0.5) / 1024), p95: Math.round(percentile(sizes, 0.95) / 1024), max: Math.round(sizes.at(-1)! / 1024) } : undefined;
console.log(`\nTime per page (${mode === "stack" ? "whole scrape: render + extract" : "extraction request"}): p50 ${timing.p50Ms} ms, p95 ${timing.p95Ms} ms, max ${timing.maxMs} ms`);
if (pageKb) console.log(`Page size: p50 ${pageKb.p50} KB, p95 ${pageKb.p95} KB, max ${pageKb.max} KB`);
if (errors.length > 0) {
  console.log(`\n${errors.length} requests failed (scored as null):`);
  for (const e of errors.slice(0, 20)) console.log(`  ${e.id}: ${e.error}`);
}

const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
const output = path.join(resultsDir, mode === "stack" ? "quality-stack.json" : "quality.json");
await writeFile(
  output,
  `${JSON.stringify(
    {
      corpus: corpusDir,
      mode,
      cases: cases.length,
      overall: metrics(overall),
      corpora: Object.fromEntries([...byCorpus].map(([k, c]) => [k, metrics(c)])),
      fields: Object.fromEntries(sortedFields.map(([k, c]) => [k, metrics(c)])),
      timing,
      pageKb,
      hybrid,
      evidence: mode === "extractor" ? evidence : undefined,
      errors,
      perCase,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nWrote ${path.relative(REPO_ROOT, output)}`);

function percentile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function pct(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
}

function fmt(value: number): string {
  return value.toFixed(3).padStart(6);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

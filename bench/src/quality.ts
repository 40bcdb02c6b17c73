/**
 * `npm run bench:quality [corpus-dir] [--stack] [--llm]`: runs every case of
 * an extraction corpus through Winnow, scores the answers by the corpus
 * README's rules, prints precision, recall and F1 per corpus, per field and
 * overall with extraction times, and writes bench/results/quality.json
 * (quality-<corpus>.json for a corpus other than dev).
 *
 * `--write-calibration` writes the leave-one-site-out reliability of each
 * evidence source and kind of value where the extractor states it
 * (services/extractor/src/flow/source-reliability.ts; rebuild to apply).
 *
 * With the builtin engine over gRPC it then measures how dependable the
 * answers are as callers ask (issue 38), each against the run above: the
 * same cases under field names a caller would write (`--names <map.json>`,
 * by default bench/paraphrased-names.json: bench/src/paraphrase.ts), with a
 * generic task description that asks for nothing the page states
 * (bench/src/with-task.ts), and in hybrid mode with a model that answers
 * every field null (bench/src/null-model.ts): what the model path loses to
 * a model that says "not found". `--skip-variants` leaves them out.
 *
 * `--llm` measures the model path's ceiling: the corpus's perfect reader
 * (`--oracle`, by default ../shared/tools/oracle_llm.py) stands in for the
 * model, the figures are printed beside the builtin engine's, every loss is
 * classified by where it happened (bench/src/losses.ts), and the result goes
 * to bench/results/quality-llm.json.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { fieldKind, isComplete } from "@winnow/extractor";
import { parseSchema } from "@winnow/platform";
import { Engine } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { type Case, readCases, servePages } from "./corpus.js";
import { addEvidence, DOUBT_BELOW, emptyEvidenceCounts } from "./evidence-figures.js";
import { fmt, pct, percentile, round } from "./format.js";
import { labelsOnPage } from "./labels-on-page.js";
import { classifyLosses, modelCallFigures, printLosses, READER_LIMITS, withoutReaderLimits } from "./losses.js";
import { startNullModel } from "./null-model.js";
import { type Oracle, type OracleCall, startOracle } from "./oracle.js";
import { originalName, paraphraseCases, readNameMap } from "./paraphrase.js";
import { printReliability, reliability, writeReliabilityTable } from "./reliability.js";
import { type Extraction, type ModelEndpoint, type Runner, startExtractorRunner, startStackRunner } from "./runners.js";
import { addOutcome, type Counts, labelsComplete, type Metrics, metrics, type Outcome, scoreField } from "./score.js";
import { printStatusTables, statusTables } from "./status-figures.js";
import { taskFor } from "./with-task.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stack: { type: "boolean", default: false },
    llm: { type: "boolean", default: false },
    oracle: { type: "string", default: path.join(REPO_ROOT, "../shared/tools/oracle_llm.py") },
    concurrency: { type: "string", default: "2" },
    "write-calibration": { type: "boolean", default: false },
    names: { type: "string", default: path.join(REPO_ROOT, "bench/paraphrased-names.json") },
    "skip-variants": { type: "boolean", default: false },
  },
});
const corpusDir = path.resolve(positionals[0] ?? path.join(REPO_ROOT, "../shared/corpus/dev"));
const concurrency = Math.max(1, Number(values.concurrency) || 1);
const mode = values.stack ? "stack" : "extractor";

if (!existsSync(path.join(corpusDir, "cases.jsonl"))) {
  console.error(
    `No corpus at ${corpusDir} (cases.jsonl missing); pass the corpus folder: npm run bench:quality -- <corpus-dir>`,
  );
  process.exit(2);
}
if (values.llm && !existsSync(values.oracle)) {
  console.error(
    `No oracle at ${values.oracle}; pass its path: npm run bench:quality -- --llm --oracle <oracle_llm.py>`,
  );
  process.exit(2);
}
const cases = await readCases(corpusDir);
const pages = await servePages(corpusDir);
const oracle = values.llm ? await startOracle(values.oracle, path.join(corpusDir, "cases.jsonl")) : undefined;
const model = oracle && { baseUrl: oracle.baseUrl, model: "oracle" };
const runner = values.stack ? await startStackRunner(pages.hostPort, model) : await startExtractorRunner(model);
const through = mode === "stack" ? "whole stack over HTTP" : "extractor over gRPC";
console.log(
  `${cases.length} cases from ${corpusDir}, through the ${through} (${model ? "the oracle reader as the model, hybrid pre-fill on" : "builtin engine"})`,
);

/**
 * `calls`: the model calls the request made, with the oracle (read one request at a time, so none is misattributed).
 */
type Result = { item: Case; extraction: Extraction; calls: OracleCall[] };
let results: Result[];
let builtin: Result[] | undefined;
try {
  // The model's figures are read beside the builtin engine's on the same pages, from an extractor of its own:
  // templates it learned from the builtin engine's reading must not answer for the model path.
  if (model && mode === "extractor") {
    const alone = await startExtractorRunner();
    builtin = await runAll(alone, Engine.ENGINE_BUILTIN).finally(() => alone.stop());
  }
  results = await runAll(runner, Engine.ENGINE_UNSPECIFIED, { watched: oracle });
} finally {
  await runner.stop();
}
const variants =
  !model && mode === "extractor" && !values["skip-variants"]
    ? await runVariants().finally(() => pages.close())
    : await pages.close().then(() => undefined);

interface RunOptions {
  /** The cases run (by default the corpus's). */
  asked?: Case[];
  /** The task description each case is asked with, by its index. */
  task?: (index: number) => string;
  watched?: Oracle;
}

async function runAll(target: Runner, engine: Engine, { asked = cases, task, watched }: RunOptions = {}) {
  const done: Result[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: watched ? 1 : concurrency }, async () => {
      while (next < asked.length) {
        const index = next++;
        const item = asked[index]!;
        const before = watched ? (await watched.calls()).length : 0;
        const extraction = await target.run(
          pages.urlOf(item),
          item.schema,
          originalUrl(item) ?? pages.urlOf(item),
          engine,
          task?.(index) ?? "",
        );
        done.push({ item, extraction, calls: watched ? (await watched.calls()).slice(before) : [] });
      }
    }),
  );
  return done;
}

/** The case's original address when it is one (some cases give only a site name). */
function originalUrl(item: Case): string | undefined {
  return item.url && /^https?:\/\//.test(item.url) && URL.canParse(item.url) ? item.url : undefined;
}

interface Scores {
  byCorpus: Map<string, Counts>;
  byField: Map<string, Counts>;
  overall: Counts;
  perCase: {
    id: string;
    ms: number;
    htmlBytes: number | undefined;
    error: string | undefined;
    outcomes: Record<string, string>;
    misses: Record<string, unknown>;
  }[];
}

/** `original`: a field's name in the corpus (complete labels are the corpus's, by its names). */
function score(run: Result[], original: (field: string) => string = (field) => field): Scores {
  const scores: Scores = { byCorpus: new Map(), byField: new Map(), overall: { tp: 0, fp: 0, fn: 0 }, perCase: [] };
  for (const { item, extraction } of run) {
    const outcomes: Record<string, string> = {};
    for (const [field, schema] of Object.entries(item.schema)) {
      const outcome = scoreField(
        field,
        schema,
        item.expected[field] ?? null,
        extraction.data?.[field] ?? null,
        labelsComplete(item.corpus, original(field)),
      );
      if (!outcome) continue;
      outcomes[field] = outcome;
      for (const counts of [
        scores.overall,
        countsFor(scores.byCorpus, item.corpus),
        countsFor(scores.byField, `${item.corpus} ${field}`),
      ])
        addOutcome(counts, outcome);
    }
    // What was expected and predicted, for the fields that were not right: what to look at next.
    const misses = Object.fromEntries(
      Object.entries(outcomes)
        .filter(([, outcome]) => outcome !== "tp")
        .map(([field]) => [
          field,
          {
            expected: item.expected[field],
            predicted: extraction.data?.[field] ?? null,
            status: extraction.fieldStatus.get(`/${field}`),
            sources: [...extraction.evidence]
              .filter(([pointer]) => pointer === `/${field}` || pointer.startsWith(`/${field}/`))
              .slice(0, 3)
              .map(([pointer, e]) => `${pointer} ${e.source} ${e.confidence} ${e.status}`),
          },
        ]),
    );
    scores.perCase.push({
      id: item.id,
      ms: round(extraction.ms),
      htmlBytes: extraction.htmlBytes,
      error: extraction.error,
      outcomes,
      misses,
    });
  }
  return scores;
}

function countsFor(map: Map<string, Counts>, key: string): Counts {
  let counts = map.get(key);
  if (!counts) {
    counts = { tp: 0, fp: 0, fn: 0 };
    map.set(key, counts);
  }
  return counts;
}

/**
 * The same corpus asked as callers ask, each run by an extractor of its own (templates learned on one run must not
 * answer another): under other field names, with a task, and with a model that answers null.
 */
async function runVariants() {
  const names = await readNameMap(path.resolve(values.names));
  const fresh = async (run: (runner: Runner) => Promise<Result[]>, endpoint?: ModelEndpoint) => {
    const runner = await startExtractorRunner(endpoint);
    return run(runner).finally(() => runner.stop());
  };
  const renamed = await fresh((r) => runAll(r, Engine.ENGINE_BUILTIN, { asked: paraphraseCases(cases, names) }));
  const tasked = await fresh((r) => runAll(r, Engine.ENGINE_BUILTIN, { task: taskFor }));
  const nullModel = await startNullModel();
  const nulled = await fresh((r) => runAll(r, Engine.ENGINE_UNSPECIFIED), {
    baseUrl: nullModel.baseUrl,
    model: "null",
  }).finally(() => nullModel.stop());
  return {
    names: score(renamed, (field) => originalName(names, field)),
    task: score(tasked),
    nullModel: score(nulled),
  };
}

const scores = score(results);
const before = builtin && score(builtin);
const errors = results.flatMap(({ item, extraction }) =>
  extraction.error ? [{ id: item.id, error: extraction.error }] : [],
);

// With the oracle, the builtin engine's F1 stands beside each row: what the model path adds or loses.
const beside = (counts: Counts | undefined) => (before ? ` | ${fmt(counts ? metrics(counts).f1 : 0)}` : "");
const figures = (name: string, m: Metrics) =>
  `${name.padEnd(48)} ${fmt(m.precision)} ${fmt(m.recall)} ${fmt(m.f1)} ${String(m.tp).padStart(5)} ${String(m.fp).padStart(5)} ${String(m.fn).padStart(5)}`;
const row = (name: string, m: Metrics, builtinCounts?: Counts) => `${figures(name, m)}${beside(builtinCounts)}`;
const header = `${"".padEnd(48)} ${"prec".padStart(6)} ${"recall".padStart(6)} ${"F1".padStart(6)} ${"tp".padStart(5)} ${"fp".padStart(5)} ${"fn".padStart(5)}${before ? " | builtin F1" : ""}`;
const sortedFields = [...scores.byField].sort(([a], [b]) => a.localeCompare(b));
console.log(`\nPer field\n${header}`);
for (const [key, counts] of sortedFields) console.log(row(key, metrics(counts), before?.byField.get(key)));
console.log(`\nPer corpus\n${header}`);
for (const [key, counts] of [...scores.byCorpus].sort(([a], [b]) => a.localeCompare(b)))
  console.log(row(key, metrics(counts), before?.byCorpus.get(key)));
console.log(row("overall", metrics(scores.overall), before?.overall));

// Hybrid mode asks the model only for the fields the builtin engine leaves null (services/extractor/src/hybrid.ts).
const hybridSource = builtin ?? (model ? undefined : results);
const hybrid = hybridSource && prefillFigures(hybridSource);
if (hybrid) {
  console.log(
    `\nHybrid pre-fill: ${hybrid.fieldsPrefilled} of ${hybrid.fields} fields (${pct(hybrid.fieldsPrefilled, hybrid.fields)}) answered without the model; ` +
      `${hybrid.pagesWithoutModelCall} of ${hybrid.pages} pages (${pct(hybrid.pagesWithoutModelCall, hybrid.pages)}) need no model call`,
  );
}

function prefillFigures(run: Result[]) {
  const prefilled = run.map(
    ({ item, extraction }) => Object.keys(item.schema).filter((field) => isComplete(extraction.data?.[field])).length,
  );
  return {
    fieldsPrefilled: prefilled.reduce((a, b) => a + b, 0),
    fields: run.reduce((sum, { item }) => sum + Object.keys(item.schema).length, 0),
    pagesWithoutModelCall: run.filter(({ item }, i) => prefilled[i] === Object.keys(item.schema).length).length,
    pages: run.length,
  };
}

const times = scores.perCase.map((c) => c.ms).sort((a, b) => a - b);
const sizes = scores.perCase.flatMap((c) => (c.htmlBytes === undefined ? [] : [c.htmlBytes])).sort((a, b) => a - b);
const timing = {
  p50Ms: round(percentile(times, 0.5)),
  p95Ms: round(percentile(times, 0.95)),
  maxMs: round(times.at(-1) ?? 0),
};
const pageKb =
  sizes.length > 0
    ? {
        p50: Math.round(percentile(sizes, 0.5) / 1024),
        p95: Math.round(percentile(sizes, 0.95) / 1024),
        max: Math.round(sizes.at(-1)! / 1024),
      }
    : undefined;
console.log(
  `\nTime per page (${mode === "stack" ? "whole scrape: render + extract" : "extraction request"}): p50 ${timing.p50Ms} ms, p95 ${timing.p95Ms} ms, max ${timing.maxMs} ms`,
);
if (pageKb) console.log(`Page size: p50 ${pageKb.p50} KB, p95 ${pageKb.p95} KB, max ${pageKb.max} KB`);
if (errors.length > 0) {
  console.log(`\n${errors.length} requests failed (scored as null):`);
  for (const e of errors.slice(0, 20)) console.log(`  ${e.id}: ${e.error}`);
}

// The builtin engine's reliability per source and kind, leave one site out: what the extractor states and what hybrid
// pre-fill lets stand (services/extractor/src/flow/prefill-calibration.ts).
const builtinScored = (builtin ?? (model ? [] : results)).map((result, i) => ({
  site: result.item.site,
  corpus: result.item.corpus,
  kinds: Object.fromEntries(
    parseSchema(result.item.schema).fields.map(({ name, node }) => [name, fieldKind(name, node)]),
  ),
  evidence: result.extraction.evidence,
  outcomes: (before ?? scores).perCase[i]!.outcomes,
}));
const calibration = mode === "extractor" && builtinScored.length > 0 ? reliability(builtinScored) : undefined;
if (calibration) printReliability(calibration);
if (values["write-calibration"]) {
  if (!calibration) throw new Error("--write-calibration needs the builtin engine's evidence (gRPC mode)");
  const table = path.join(REPO_ROOT, "services/extractor/src/flow/source-reliability.ts");
  await writeReliabilityTable(table, calibration.cells, path.relative(REPO_ROOT, corpusDir));
  console.log(`Wrote ${path.relative(REPO_ROOT, table)}`);
}

// How well evidence explains the builtin engine's answers (gRPC mode: the stack runner asks for the data alone).
const evidenceCounts = emptyEvidenceCounts();
(builtin ?? (model ? [] : results)).forEach(({ extraction }, i) => {
  for (const [field, outcome] of Object.entries(builtinScored[i]!.outcomes))
    addEvidence(evidenceCounts, outcome as Outcome, field, extraction.data?.[field] ?? null, extraction.evidence);
});
const evidence =
  mode === "extractor" && builtinScored.length > 0
    ? {
        correctValues: evidenceCounts.correctValues,
        correctWithValueInText:
          round((100 * evidenceCounts.contained) / Math.max(1, evidenceCounts.correctValues)) / 100,
        wrongFields: evidenceCounts.wrongFields,
        wrongFlaggedBelow06: round((100 * evidenceCounts.flagged) / Math.max(1, evidenceCounts.wrongFields)) / 100,
      }
    : undefined;
if (evidence) {
  console.log(
    `\nEvidence: ${evidenceCounts.contained} of ${evidenceCounts.correctValues} correct values (${pct(evidenceCounts.contained, evidenceCounts.correctValues)}) have the value in their evidence text; ` +
      `${evidenceCounts.flagged} of ${evidenceCounts.wrongFields} wrong fields (${pct(evidenceCounts.flagged, evidenceCounts.wrongFields)}) are flagged by a confidence below ${DOUBT_BELOW}`,
  );
}

// What each value's status is worth (gRPC mode: the stack runner reads the data alone).
const status =
  mode === "extractor"
    ? Object.fromEntries(
        statusTables(
          results.map(({ item, extraction }) => ({
            corpus: item.corpus,
            schema: item.schema,
            expected: item.expected,
            data: extraction.data,
            fieldStatus: extraction.fieldStatus,
          })),
        ),
      )
    : undefined;
if (status) printStatusTables(new Map(Object.entries(status)));

// The variants against the run above, overall and per corpus: what a caller's own names, a task or a model's nulls cost.
const dependability = variants && dependabilityFigures(variants);
if (dependability) {
  console.log(
    `\nAs callers ask (F1, and its ratio to the run above; aims: names >= 0.95x, task >= 0.98x, null model 1x)`,
  );
  console.log(`${"".padEnd(24)} ${"names".padStart(15)} ${"task".padStart(15)} ${"null model".padStart(15)}`);
  for (const [corpus, row] of Object.entries(dependability)) {
    const cell = ({ f1, ratio }: { f1: number; ratio: number }) => `${fmt(f1)} ${fmt(ratio)}x`.padStart(15);
    console.log(`${corpus.padEnd(24)} ${cell(row.names)} ${cell(row.task)} ${cell(row.nullModel)}`);
  }
}

function dependabilityFigures(runs: NonNullable<typeof variants>) {
  const against = (counts: Counts | undefined, base: Counts | undefined) => {
    const f1 = counts ? metrics(counts).f1 : 0;
    const baseF1 = base ? metrics(base).f1 : 0;
    return { f1: round(f1 * 1000) / 1000, ratio: baseF1 > 0 ? Math.round((1000 * f1) / baseF1) / 1000 : 0 };
  };
  const row = (of: (s: Scores) => Counts | undefined) => ({
    names: against(of(runs.names), of(scores)),
    task: against(of(runs.task), of(scores)),
    nullModel: against(of(runs.nullModel), of(scores)),
  });
  return Object.fromEntries([
    ...[...scores.byCorpus.keys()].sort().map((corpus) => [corpus, row((s) => s.byCorpus.get(corpus))] as const),
    ["overall", row((s) => s.overall)] as const,
  ]);
}

let llm: Record<string, unknown> | undefined;
if (oracle) {
  await oracle.stop();
  const scored = results.map((result, i) => ({ ...result, outcomes: scores.perCase[i]!.outcomes }));
  const checkers = new Map<string, ReturnType<typeof labelsOnPage>>();
  const losses = classifyLosses(scored, (item, field) => {
    if (!checkers.has(item.id))
      checkers.set(item.id, labelsOnPage(readFileSync(path.join(corpusDir, item.page), "utf8")));
    return checkers.get(item.id)!(item.expected[field]);
  });
  const callFigures = modelCallFigures(scored);
  printLosses(losses, callFigures);
  const ownCeiling = withoutReaderLimits(scores.byCorpus, losses);
  console.log(`\nWithout the reader's own limits (${READER_LIMITS.join(", ")}: those fields unscored)`);
  for (const [corpus, counts] of [...ownCeiling].sort(([a], [b]) => a.localeCompare(b)))
    console.log(figures(corpus, metrics(counts)));
  llm = {
    losses,
    withoutReaderLimits: metricsOf(ownCeiling),
    modelCalls: callFigures,
    builtin: before && {
      overall: metrics(before.overall),
      corpora: metricsOf(before.byCorpus),
      fields: metricsOf(before.byField),
    },
  };
}

const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
// Another corpus than dev gets its own file (quality-lists.json): one run does not overwrite another corpus's figures.
const corpusName = path.basename(corpusDir) === "dev" ? "" : `-${path.basename(corpusDir)}`;
const output = path.join(
  resultsDir,
  `quality${corpusName}${model ? "-llm" : ""}${mode === "stack" ? "-stack" : ""}.json`,
);
await writeFile(
  output,
  `${JSON.stringify(
    {
      corpus: corpusDir,
      mode,
      model: model?.model,
      cases: cases.length,
      overall: metrics(scores.overall),
      corpora: metricsOf(scores.byCorpus),
      fields: metricsOf(new Map(sortedFields)),
      timing,
      pageKb,
      hybrid,
      evidence,
      status,
      dependability,
      errors,
      calibration,
      ...llm,
      perCase: scores.perCase,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nWrote ${path.relative(REPO_ROOT, output)}`);

function metricsOf(map: Map<string, Counts>): Record<string, Metrics> {
  return Object.fromEntries([...map].map(([k, c]) => [k, metrics(c)]));
}

/**
 * `npm run bench:templates [corpus-dir] [--no-prefill]`: template learning on the corpus's
 * SWDE sites (or, given the listing corpus, its sites: lists scored record by record), page by page. Each site's pages go through the extractor's
 * flow in order (in process, so that each page's learning has settled before
 * the next page is asked), with the test suite's scripted model as the
 * teacher (bench/src/teacher.ts). Prints, per site and overall: model tokens
 * per page by page index, the share of fields the template answered after
 * 1, 2, 3 and 5 pages, and precision, recall and F1 of the template's
 * answers against the labels; then the builtin engine alone on each site's
 * later pages, with the template its first two pages taught and without;
 * writes bench/results/templates.json.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  type FlowSettings,
  LlmEngine,
  loadPage,
  MemoryTemplateStore,
  pageTokenBudget,
  runExtraction,
  SchemaCache,
  TemplateLearner,
} from "@winnow/extractor";
import { createLogger } from "@winnow/platform";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { type Case, readCases } from "./corpus.js";
import { itemSchemaOf, scoreRecords, sumFields } from "./list-score.js";
import { addOutcome, type Counts, type Metrics, metrics, type SchemaValue, scoreField } from "./score.js";
import { startTeacher } from "./teacher.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "no-prefill": { type: "boolean", default: false } },
});
const corpusDir = path.resolve(positionals[0] ?? path.join(REPO_ROOT, "../shared/corpus/dev"));
/**
 * Without the builtin pre-fill the model is asked every field the template does not answer: what templates learn alone.
 */
const prefill = !values["no-prefill"];
if (!existsSync(path.join(corpusDir, "cases.jsonl"))) {
  console.error(
    `No corpus at ${corpusDir} (cases.jsonl missing); pass the corpus folder: npm run bench:templates -- <corpus-dir>`,
  );
  process.exit(2);
}
const cases = (await readCases(corpusDir)).filter((item) => item.corpus === "swde" || item.corpus === "lists");
const sites = new Map<string, Case[]>();
for (const item of cases) sites.set(item.site, [...(sites.get(item.site) ?? []), item]);
/** Page counts after which the template's share is reported. */
const AFTER = [1, 2, 3, 5];
/** Pages of each site the model reads before the builtin engine alone is measured with the template they taught. */
const TEACHING_PAGES = 2;

const teacher = await startTeacher();
const logger = createLogger("bench", "warn");
const settings: FlowSettings = {
  schemas: new SchemaCache(64),
  prompts: { pageTokens: pageTokenBudget("gpt-4o-mini", undefined), maxParts: 8, maxParallel: 2, grounding: "warn" },
  hybrid: prefill ? "proven" : "off",
  templates: new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 20, templates: 1_000 }), logger),
  logger,
};
const llm = new LlmEngine(
  { baseUrl: teacher.baseUrl, apiKey: "teacher", model: "teacher", maxRetries: 0, timeoutMs: 30_000 },
  logger,
);

interface PageRun {
  id: string;
  index: number;
  fields: number;
  templated: number;
  /** Fields answered without the model: by the template or the builtin pre-fill. */
  withoutModel: number;
  tokens: number;
  template: Counts;
  answer: Counts;
}

const runs: PageRun[] = [];
/**
 * The builtin engine alone on each site's pages after the first two, with the template those two taught and without.
 */
const builtinOnly = { withTemplate: { tp: 0, fp: 0, fn: 0 }, without: { tp: 0, fp: 0, fn: 0 } };
try {
  for (const pages of sites.values()) {
    for (const [index, item] of pages.entries()) runs.push(await runPage(item, index));
  }
  for (const pages of sites.values()) {
    const fresh = {
      ...settings,
      templates: new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 20, templates: 1_000 }), logger),
    };
    for (const item of pages.slice(0, TEACHING_PAGES)) await extract(item, llm, fresh);
    for (const item of pages.slice(TEACHING_PAGES)) {
      score(item, (await extract(item, undefined, fresh)).data, builtinOnly.withTemplate);
      score(item, (await extract(item, undefined, { ...settings, templates: undefined })).data, builtinOnly.without);
    }
  }
} finally {
  await teacher.close();
}

/** One page through the extractor's flow, its learning settled. */
async function extract(item: Case, model: LlmEngine | undefined, flow: FlowSettings) {
  teacher.teach(item);
  const schemaJson = JSON.stringify(item.schema);
  const html = await readFile(path.join(corpusDir, item.page), "utf8");
  const bounds = { signal: new AbortController().signal, deadline: undefined };
  const job = {
    schemaJson,
    fieldHints: {},
    fieldRules: {},
    schema: flow.schemas.get(schemaJson),
    page: loadPage(html, pageUrl(item)),
    taskDescription: "",
    includeModelInput: false,
    evidence: false,
    llm: model,
    bounds,
    templateScope: { tenant: "bench", learn: true },
    pageWarnings: [],
    wantNextPage: false,
    knownFields: [],
  };
  const extraction = await runExtraction(job, flow);
  await extraction.learning;
  return { extraction, data: JSON.parse(extraction.response.dataJson) as Record<string, unknown> };
}

/**
 * The page's address: the listing corpus names only the host of most pages, and a template knows its pages by their
 * address, so each page gets one of its own on its host.
 */
function pageUrl(item: Case): string {
  const url = item.url ?? "";
  return url === "" || URL.canParse(url) ? url : `https://${url}/${encodeURIComponent(item.id)}`;
}

function score(item: Case, data: Record<string, unknown>, counts: Counts): void {
  for (const [field, schema] of Object.entries(item.schema))
    scoreOne(field, schema, item.expected[field] ?? null, data[field] ?? null, counts);
}

/** One field's counts: a list of records record by record (list-score.ts), any other field as one value. */
function scoreOne(field: string, schema: SchemaValue, expected: unknown, predicted: unknown, counts: Counts): void {
  const item = itemSchemaOf(schema);
  if (item) {
    const fields = sumFields(scoreRecords(item, expected, predicted));
    counts.tp += fields.tp;
    counts.fp += fields.fp;
    counts.fn += fields.fn;
    return;
  }
  const outcome = scoreField(field, schema, expected, predicted);
  if (outcome) addOutcome(counts, outcome);
}

async function runPage(item: Case, index: number): Promise<PageRun> {
  const { extraction, data } = await extract(item, llm, settings);
  const template: Counts = { tp: 0, fp: 0, fn: 0 };
  const answer: Counts = { tp: 0, fp: 0, fn: 0 };
  score(item, data, answer);
  for (const [field, schema] of Object.entries(item.schema)) {
    const expected = item.expected[field] ?? null;
    const templated = extraction.templated.get(field);
    if (templated) scoreOne(field, schema, expected, templated.value, template);
    else if (itemSchemaOf(schema)) scoreOne(field, schema, expected, null, template);
    else if (expected !== null) addOutcome(template, "fn");
  }
  const fields = Object.keys(item.schema).length;
  const byModel =
    extraction.response.model === "" ? 0 : fields - extraction.templated.size - extraction.prefilledFields.length;
  return {
    id: item.id,
    index,
    fields,
    templated: extraction.templated.size,
    withoutModel: fields - byModel,
    tokens: extraction.response.usage?.totalTokens ?? 0,
    template,
    answer,
  };
}

function summary(selected: PageRun[]) {
  const sum = (pick: (run: PageRun) => number, runs = selected) => runs.reduce((total, run) => total + pick(run), 0);
  const share = (after: number, pick: (run: PageRun) => number) => {
    const later = selected.filter((run) => run.index >= after);
    return (
      sum(pick, later) /
      Math.max(
        1,
        sum((run) => run.fields, later),
      )
    );
  };
  const maxIndex = Math.max(...selected.map((run) => run.index));
  const tokensByIndex = Array.from({ length: maxIndex + 1 }, (_, i) => {
    const at = selected.filter((run) => run.index === i);
    return Math.round(sum((run) => run.tokens, at) / Math.max(1, at.length));
  });
  const counts = (pick: (run: PageRun) => Counts): Counts => ({
    tp: sum((r) => pick(r).tp),
    fp: sum((r) => pick(r).fp),
    fn: sum((r) => pick(r).fn),
  });
  return {
    pages: selected.length,
    tokensByIndex,
    templateShareAfter: Object.fromEntries(AFTER.map((after) => [after, round(share(after, (run) => run.templated))])),
    withoutModelShareAfter: Object.fromEntries(
      AFTER.map((after) => [after, round(share(after, (run) => run.withoutModel))]),
    ),
    template: rounded(metrics(counts((run) => run.template))),
    answer: rounded(metrics(counts((run) => run.answer))),
  };
}

const siteOf = new Map(cases.map((item) => [item.id, item.site]));
const perSite = [...sites.keys()].map(
  (site) => [site, summary(runs.filter((run) => siteOf.get(run.id) === site))] as const,
);
const overall = summary(runs);

const pct = (value: number) => `${(100 * value).toFixed(0)}%`.padStart(5);
const num = (value: number) => value.toFixed(3).padStart(6);
console.log(
  `${cases.length} pages of ${sites.size} sites, page by page, builtin pre-fill ${prefill ? "on" : "off"}; teacher: scripted model answering labelled values it is shown\n`,
);
console.log("Model tokens per page, by page index (mean over sites)");
console.log(`${"".padEnd(20)} ${overall.tokensByIndex.map((_, i) => `#${i + 1}`.padStart(6)).join(" ")}`);
for (const [site, s] of [...perSite, ["overall", overall] as const])
  console.log(`${site.padEnd(20)} ${s.tokensByIndex.map((t) => String(t).padStart(6)).join(" ")}`);
console.log(
  `\nFields answered by the template (and without the model: template + builtin pre-fill), on the pages after n pages; template answers against the labels`,
);
console.log(
  `${"".padEnd(20)} ${AFTER.map((n) => `after ${n}`.padStart(13)).join(" ")}   ${"prec".padStart(6)} ${"recall".padStart(6)} ${"F1".padStart(6)}   answer P / F1`,
);
for (const [site, s] of [...perSite, ["overall", overall] as const]) {
  const shares = AFTER.map((n) =>
    `${pct(s.templateShareAfter[n]!)} (${pct(s.withoutModelShareAfter[n]!)})`.padStart(13),
  ).join(" ");
  console.log(
    `${site.padEnd(20)} ${shares}   ${num(s.template.precision)} ${num(s.template.recall)} ${num(s.template.f1)}   ${num(s.answer.precision)} ${num(s.answer.f1)}`,
  );
}
const first = overall.tokensByIndex[0] ?? 0;
const late = overall.tokensByIndex.slice(5);
const lateMean = late.reduce((a, b) => a + b, 0) / Math.max(1, late.length);
console.log(
  `\nTokens per page after 5 pages: ${Math.round(lateMean)} (${pct(lateMean / Math.max(1, first)).trim()} of the first page's ${first})`,
);

const withTemplate = rounded(metrics(builtinOnly.withTemplate));
const without = rounded(metrics(builtinOnly.without));
console.log(
  `\nBuiltin engine alone on pages 3-10 of each site, after the model read pages 1-2: P/R/F1 ${withTemplate.precision}/${withTemplate.recall}/${withTemplate.f1} with the learned template, ${without.precision}/${without.recall}/${without.f1} without`,
);

const resultsDir = path.join(REPO_ROOT, "bench/results");
await mkdir(resultsDir, { recursive: true });
// The listing corpus (or another) writes beside the dev corpus's figures, not over them.
const corpusTag = path.basename(corpusDir) === "dev" ? "" : `-${path.basename(corpusDir)}`;
const output = `templates${corpusTag}${prefill ? "" : "-no-prefill"}.json`;
await writeFile(
  path.join(resultsDir, output),
  `${JSON.stringify({ corpus: corpusDir, prefill, pages: cases.length, overall, sites: Object.fromEntries(perSite), builtinOnly: { withTemplate, without }, runs }, null, 2)}\n`,
);
console.log(`\nWrote bench/results/${output}`);

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function rounded(m: Metrics): Metrics {
  return { ...m, precision: round(m.precision), recall: round(m.recall), f1: round(m.f1) };
}

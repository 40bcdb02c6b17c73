/**
 * What the model reads, measured over the corpus pages (../shared/corpus/dev):
 * tokens of the raw HTML, of a plain HTML-to-markdown conversion of the whole
 * page (node-html-markdown, the baseline), and of our page content; the share
 * of labelled values that appear in our content against the same share for
 * the page's full visible text; and for articles, how many of the
 * content_must_include snippets are kept and content_must_exclude dropped.
 *
 *   npm run bench:content [-- --corpus /path/to/corpus/dev] [-- --limit 20]
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  countTokens,
  loadPage,
  normalizeText,
  numbersIn,
  urlsWanted,
  withoutUrls,
  writeModelContent,
} from "@winnow/extractor";
import { parseSchema } from "@winnow/platform";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { load } from "cheerio";
import { NodeHtmlMarkdown } from "node-html-markdown";

interface Case {
  id: string;
  corpus: string;
  url: string;
  page: string;
  schema: unknown;
  expected: Record<string, unknown>;
  content_must_include?: string[];
  content_must_exclude?: string[];
}

const { values: args } = parseArgs({ options: { corpus: { type: "string" }, limit: { type: "string" } } });
const corpusDir = args.corpus ?? join(REPO_ROOT, "../shared/corpus/dev");
const cases = readFileSync(join(corpusDir, "cases.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as Case)
  .slice(0, args.limit ? Number(args.limit) : undefined);

/** The page's full visible text: the body's text without scripts, styles and hidden templates. */
function visibleText(html: string): string {
  const $ = load(html);
  $("script, style, noscript, template").remove();
  return [$("title").text(), $("body").text() || $.root().text()].join("\n");
}

/** Labelled values, flattened: scalars and list items; a {"$any": [...]} is one value with alternatives. */
function labelledValues(value: unknown): unknown[][] {
  if (value === null || value === undefined || typeof value === "boolean") return [];
  if (Array.isArray(value)) return value.flatMap(labelledValues);
  if (typeof value === "object") {
    const any = (value as { $any?: unknown[] }).$any;
    if (any) return [any.flatMap((alternative) => labelledValues(alternative).flat())];
    return Object.values(value).flatMap(labelledValues);
  }
  return [[value]];
}

class Haystack {
  readonly text: string;
  private numbers: Set<number> | undefined;
  constructor(text: string) {
    this.text = `${normalizeText(text)}\n${normalizeText(withoutUrls(text))}`;
  }
  has(value: unknown): boolean {
    if (typeof value === "number") {
      this.numbers ??= numbersIn(this.text);
      return this.numbers.has(value);
    }
    return this.text.includes(normalizeText(String(value)));
  }
}

interface Row {
  corpus: string;
  pages: number;
  rawTokens: number;
  markdownTokens: number;
  contentTokens: number;
  values: number;
  inFullText: number;
  inContent: number;
  /** Of the values found in the full visible text, how many our content has too. */
  inContentOfFullText: number;
  mustInclude: number;
  included: number;
  mustExclude: number;
  excluded: number;
}

const markdown = new NodeHtmlMarkdown();
const rows = new Map<string, Row>();
const perPage: Array<Record<string, unknown>> = [];
const started = Date.now();
for (const testCase of cases) {
  const html = readFileSync(join(corpusDir, testCase.page), "utf8");
  const content = writeModelContent(loadPage(html, testCase.url), urlsWanted(parseSchema(testCase.schema))).text;
  const full = new Haystack(visibleText(html));
  const ours = new Haystack(content);
  const row = rows.get(testCase.corpus) ?? emptyRow(testCase.corpus);
  rows.set(testCase.corpus, row);
  const tokens = {
    raw: countTokens(html),
    markdown: countTokens(markdown.translate(html)),
    content: countTokens(content),
  };
  row.pages += 1;
  row.rawTokens += tokens.raw;
  row.markdownTokens += tokens.markdown;
  row.contentTokens += tokens.content;
  const missed: unknown[] = [];
  for (const alternatives of labelledValues(testCase.expected)) {
    const inFull = alternatives.some((v) => full.has(v));
    const inOurs = alternatives.some((v) => ours.has(v));
    row.values += 1;
    row.inFullText += inFull ? 1 : 0;
    row.inContent += inOurs ? 1 : 0;
    row.inContentOfFullText += inFull && inOurs ? 1 : 0;
    if (inFull && !inOurs) missed.push(alternatives[0]);
  }
  const include = testCase.content_must_include ?? [];
  const exclude = testCase.content_must_exclude ?? [];
  row.mustInclude += include.length;
  row.included += include.filter((snippet) => ours.has(snippet)).length;
  row.mustExclude += exclude.length;
  row.excluded += exclude.filter((snippet) => !ours.has(snippet)).length;
  perPage.push({
    id: testCase.id,
    tokens,
    missedValues: missed,
    droppedIncludes: include.filter((s) => !ours.has(s)),
    keptExcludes: exclude.filter((s) => ours.has(s)),
  });
}

const all = [...rows.values()];
const total = all.reduce<Row>((sum, row) => {
  // The initial value is a fresh object, so adding into it in place changes nothing else.
  for (const key of Object.keys(row) as Array<keyof Row>)
    if (key !== "corpus") (sum[key] as number) += row[key] as number;
  return sum;
}, emptyRow("all"));
const pct = (part: number, whole: number) => (whole === 0 ? null : Math.round((1000 * part) / whole) / 10);
const summary = [...all, total].map((row) => ({
  corpus: row.corpus,
  pages: row.pages,
  rawHtmlTokens: row.rawTokens,
  markdownTokens: row.markdownTokens,
  contentTokens: row.contentTokens,
  contentVsRawHtml: Math.round((1000 * row.contentTokens) / row.rawTokens) / 1000,
  contentVsMarkdown: Math.round((1000 * row.contentTokens) / row.markdownTokens) / 1000,
  labelledValues: row.values,
  valueRecallFullTextPct: pct(row.inFullText, row.values),
  valueRecallContentPct: pct(row.inContent, row.values),
  /** The aim: at least 98. */
  contentRecallOfFullTextPct: pct(row.inContentOfFullText, row.inFullText),
  mustIncludeKeptPct: pct(row.included, row.mustInclude),
  mustExcludeDroppedPct: pct(row.excluded, row.mustExclude),
}));

console.table(
  summary.map((s) => ({
    corpus: s.corpus,
    pages: s.pages,
    "raw HTML tok": s.rawHtmlTokens,
    "markdown tok": s.markdownTokens,
    "content tok": s.contentTokens,
    "content/raw": s.contentVsRawHtml,
    "content/md": s.contentVsMarkdown,
    "recall full %": s.valueRecallFullTextPct,
    "recall content %": s.valueRecallContentPct,
    "content/full recall %": s.contentRecallOfFullTextPct,
    "include kept %": s.mustIncludeKeptPct ?? "-",
    "exclude dropped %": s.mustExcludeDroppedPct ?? "-",
  })),
);
const out = join(REPO_ROOT, "bench/results/content.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ corpus: corpusDir, cases: cases.length, seconds: Math.round((Date.now() - started) / 1000), summary, perPage }, null, 2)}\n`,
);
console.log(`${cases.length} pages in ${Math.round((Date.now() - started) / 1000)} s; details in ${out}`);

/** A corpus's row before its first page: every count zero. */
function emptyRow(corpus: string): Row {
  return {
    corpus,
    pages: 0,
    rawTokens: 0,
    markdownTokens: 0,
    contentTokens: 0,
    values: 0,
    inFullText: 0,
    inContent: 0,
    inContentOfFullText: 0,
    mustInclude: 0,
    included: 0,
    mustExclude: 0,
    excluded: 0,
  };
}

/** Figures of the page benchmarks (render, blocked, content, templates, list-cost) in bench/README.md. */
import type { Figures } from "../doc-figures.js";
import { at, count, f1, f3, list, num, pct, type Results, table } from "./results.js";

/** A row of bench/src/blocked.ts's output. */
type BlockedRow = { kind: string } & Record<
  "renders" | "failed" | "incomplete" | "navigationP50Ms" | "navigationP95Ms" | "totalP50Ms" | "totalP95Ms",
  number
>;

interface ContentRow {
  corpus: string;
  pages: number;
  rawHtmlTokens: number;
  markdownTokens: number;
  contentTokens: number;
  contentVsRawHtml: number;
  contentVsMarkdown: number;
  valueRecallFullTextPct: number;
  valueRecallContentPct: number;
  contentRecallOfFullTextPct: number;
  mustIncludeKeptPct: number | null;
  mustExcludeDroppedPct: number | null;
}

interface CostRow {
  records: number;
  bytes: number;
  cpuMs: number;
  answered: number;
  growth?: number;
}

interface TemplateRun {
  tokensByIndex: number[];
  templateShareAfter: Record<string, number>;
  withoutModelShareAfter: Record<string, number>;
  template: { precision: number; recall: number };
  answer: { precision: number; f1: number };
}

/** `98.0%`, `100%` of a percentage; empty where the corpus has no such figure. */
const percentOf = (x: number | null) => (x === null ? "" : x === 100 ? "100%" : `${x.toFixed(1)}%`);
const after = (shares: Record<string, number>) =>
  Object.keys(shares).map((n) => `${Math.round((shares[n] ?? 0) * 100)}%`);
const run = (r: Results, file: string) => at(r, `${file}.overall`) as TemplateRun;

function renderRatios(r: Results): string {
  const ratios = list<{ concurrency: number; oursOverBareP50: number; oursOverBarePagesPerSecond: number }>(
    r,
    "render.ratios",
  );
  const levels = ratios.map((x) => x.concurrency).join(" / ");
  return `**${ratios.map((x) => `${x.oursOverBareP50.toFixed(2)}×`).join(" / ")}** at concurrency ${levels} (pages per second ${ratios.map((x) => `${x.oursOverBarePagesPerSecond.toFixed(2)}×`).join(" / ")} of the bare script's)`;
}

function blockedTable(r: Results): string {
  const cell = (row: BlockedRow) =>
    row.incomplete === row.renders ? "–" : `${row.navigationP50Ms} / ${row.navigationP95Ms}`;
  return table(
    ["kind", "incomplete", "failed", "nav p50 / p95 ms", "total p50 / p95 ms"],
    list<BlockedRow>(r, "blocked.rows").map((row) => [
      row.kind,
      `${row.incomplete} of ${row.renders}`,
      String(row.failed),
      cell(row),
      `${row.totalP50Ms} / ${row.totalP95Ms}`,
    ]),
  );
}

function contentTable(r: Results): string {
  return table(
    [
      "corpus",
      "pages",
      "raw HTML tokens",
      "markdown tokens",
      "content tokens",
      "content / raw",
      "content / markdown",
      "values in full text",
      "values in content",
      "of full-text values, in content",
      "include kept",
      "exclude dropped",
    ],
    list<ContentRow>(r, "content.summary").map((row) => [
      row.corpus,
      String(row.pages),
      count(row.rawHtmlTokens),
      count(row.markdownTokens),
      count(row.contentTokens),
      row.contentVsRawHtml.toFixed(3),
      row.contentVsMarkdown.toFixed(2),
      percentOf(row.valueRecallFullTextPct),
      percentOf(row.valueRecallContentPct),
      percentOf(row.contentRecallOfFullTextPct),
      percentOf(row.mustIncludeKeptPct),
      percentOf(row.mustExcludeDroppedPct),
    ]),
  );
}

function contentAll(r: Results): ContentRow {
  const all = list<ContentRow>(r, "content.summary").find((row) => row.corpus === "all");
  if (!all) throw new Error("bench/results content.summary has no `all` row");
  return all;
}

/** `98.0% … (recipe-scrapers 97.4%, …)`: of the values the full text has, the share in our content. */
function contentRecall(r: Results): string {
  const corpora = list<ContentRow>(r, "content.summary")
    .filter((row) => row.corpus !== "all")
    .map((row) => `${row.corpus} ${percentOf(row.contentRecallOfFullTextPct)}`);
  return `${percentOf(contentAll(r).contentRecallOfFullTextPct)} (${corpora.join(", ")})`;
}

function costTable(r: Results): string {
  const row = (page: string, rows: CostRow[]) => [
    page,
    rows.map((x) => count(x.records)).join(" / "),
    `${(rows.at(-1)?.bytes ?? 0) / 1e6 >= 1 ? `${((rows.at(-1)?.bytes ?? 0) / 1e6).toFixed(1)} MB` : ""}`,
    rows.map((x) => `${f1(x.cpuMs / 1000)}${x.growth === undefined ? "" : ` (x${x.growth.toFixed(2)})`}`).join(" / "),
    rows.map((x) => count(x.answered)).join(" / "),
  ];
  return table(
    ["page", "records", "largest", "CPU s (growth)", "records answered"],
    [row("grid", list<CostRow>(r, "list-cost.grid")), row("labelled rows", list<CostRow>(r, "list-cost.rows"))],
  );
}

function templateShares(r: Results): string {
  const overall = run(r, "templates");
  return table(
    ["", ...Object.keys(overall.templateShareAfter).map((n) => (n === "1" ? "after 1 page" : `after ${n}`))],
    [
      ["fields answered by the template", ...after(overall.templateShareAfter)],
      ["fields answered without the model (template or proven pre-fill)", ...after(overall.withoutModelShareAfter)],
    ],
  );
}

function templateTokens(r: Results): string {
  const tokens = run(r, "templates").tokensByIndex;
  return table(
    ["page", ...tokens.map((_t, i) => String(i + 1))],
    [["model tokens (mean over sites)", ...tokens.map(String)]],
  );
}

/** The mean model tokens of pages 6–10 against the first page's. */
function tokensAfterFive(r: Results): string {
  const tokens = run(r, "templates").tokensByIndex;
  const later = tokens.slice(5);
  return pct(later.reduce((a, b) => a + b, 0) / later.length / (tokens[0] ?? Number.NaN), 0);
}

export function pageFigures(r: Results): Figures {
  const builtinOnly = (side: string) => {
    const s = at(r, `templates.builtinOnly.${side}`) as { precision: number; recall: number; f1: number };
    return `${f3(s.precision)} / ${f3(s.recall)} / ${f3(s.f1)}`;
  };
  return {
    "render.ratios": () => renderRatios(r),
    "render.settings": () =>
      `${num(r, "render.rendersPerLevel")} renders per level, a soak of ${list<{ renders: number }>(r, "render.soak").at(-1)?.renders} renders`,
    "blocked.rows": () => blockedTable(r),
    "content.rows": () => contentTable(r),
    "content.shares": () =>
      `${pct(contentAll(r).contentVsRawHtml)} of the raw HTML's tokens and ${pct(contentAll(r).contentVsMarkdown, 0)} of the plain markdown's`,
    "content.values": () =>
      `${percentOf(contentAll(r).valueRecallContentPct)} against ${percentOf(contentAll(r).valueRecallFullTextPct)}`,
    "content.recall": () => contentRecall(r),
    "content.excludes-dropped": () => percentOf(contentAll(r).mustExcludeDroppedPct),
    "list-cost.rows": () => costTable(r),
    "templates.shares": () => templateShares(r),
    "templates.tokens": () => templateTokens(r),
    "templates.template": () =>
      `precision ${f3(run(r, "templates").template.precision)}, recall ${run(r, "templates").template.recall.toFixed(2)}`,
    "templates.answer": () => `P ${f3(run(r, "templates").answer.precision)} / F1 ${f3(run(r, "templates").answer.f1)}`,
    "templates.tokens-after-five": () => tokensAfterFive(r),
    "templates-no-prefill.shares": () => {
      const overall = run(r, "templates-no-prefill");
      return `${after(overall.templateShareAfter).join(" / ")} of the fields after ${Object.keys(overall.templateShareAfter).join(" / ")} pages at precision ${f3(overall.template.precision)}`;
    },
    "templates.builtin-only": () =>
      `P/R/F1 ${builtinOnly("without")} without a template, ${builtinOnly("withTemplate")} with the one the model's reading of the site's first two pages taught`,
  };
}

/** Figures of `npm run bench:quality` (bench/results/quality*.json) in bench/README.md and docs/architecture.md. */
import type { Figures } from "../doc-figures.js";
import { at, f1, f3, list, num, pct, prf, type Results, table } from "./results.js";

interface Score {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

interface CalibrationCell {
  cell: string;
  sites: number;
  answers: number;
  right: number;
  /** The mean of the sites' precisions (`bench/src/reliability.ts`). */
  precision: number;
  reliability: number;
  heldOutProven: number;
  heldOutProvenRight: number;
}

/** The dev corpus's parts, as the docs name them, and the aims they are held to (issue text, not results). */
const CORPORA: Readonly<Record<string, { label: string; aim: string }>> = {
  "recipe-scrapers": { label: "recipe-scrapers (70 pages)", aim: "P ≥ 0.9, F1 ≥ 0.9" },
  "trafilatura-eval": { label: "trafilatura-eval (120 articles)", aim: "P ≥ 0.9, F1 ≥ 0.8" },
  swde: { label: "swde (80 pages, 8 verticals)", aim: "P ≥ 0.9, F1 ≥ 0.6" },
  "zyte-product-benchmark": { label: "zyte-product-benchmark (49 shop pages)", aim: "per field below" },
};
const SHOP = "zyte-product-benchmark";
const PRODUCT_FIELDS: Readonly<Record<string, string>> = {
  price: "P ≥ 0.9, F1 ≥ 0.85",
  sku: "P ≥ 0.9, F1 ≥ 0.70",
  in_stock: "P ≥ 0.9, F1 ≥ 0.85",
  brand: "P ≥ 0.9, F1 ≥ 0.75",
};
/** Reader's-limit places of a loss (`bench/src/losses.ts`): no pipeline avoids them with the oracle. */
const READER_LIMITS = ["reader took another page", "label not on the page"];
const LOSS_PLACES = ["pre-filled wrong", "lost after the model", "not in content sent", ...READER_LIMITS];
/** Cells of the reliability table: seen on this many sites or more; the rest are counted. */
const CALIBRATION_SITES = 20;

const score = (r: Results, dotted: string) => at(r, dotted) as Score;
const corporaOf = (r: Results, file: string) => Object.keys(at(r, `${file}.corpora`) as object);

function corporaTable(r: Results, file: string): string {
  const rows = corporaOf(r, file).map((corpus) => {
    const s = score(r, `${file}.corpora.${corpus}`);
    return [CORPORA[corpus]?.label ?? corpus, f3(s.precision), f3(s.recall), f3(s.f1), CORPORA[corpus]?.aim ?? ""];
  });
  const all = score(r, `${file}.overall`);
  return table(
    ["corpus", "precision", "recall", "F1", "aim"],
    [...rows, ["overall", f3(all.precision), f3(all.recall), f3(all.f1), ""]],
  );
}

function productFieldsTable(r: Results, file: string): string {
  return table(
    ["product field", "precision", "recall", "F1", "aim"],
    Object.entries(PRODUCT_FIELDS).map(([field, aim]) => {
      const s = score(r, `${file}.fields.${SHOP} ${field}`);
      return [field, f3(s.precision), f3(s.recall), f3(s.f1), aim];
    }),
  );
}

function calibrationTable(r: Results): string {
  const cells = list<CalibrationCell>(r, "quality.calibration.cells");
  const shown = cells.filter((c) => c.sites >= CALIBRATION_SITES).sort((a, b) => b.reliability - a.reliability);
  return [
    table(
      ["source kind", "sites", "answers", "precision", "site mean", "stated"],
      shown.map((c) => [
        c.cell,
        String(c.sites),
        String(c.answers),
        f3(c.right / c.answers),
        f3(c.precision),
        f3(c.reliability),
      ]),
    ),
    "",
    `(and ${cells.length - shown.length} rarer cells, seen on fewer than ${CALIBRATION_SITES} sites).`,
  ].join("\n");
}

const cell = (r: Results, name: string): CalibrationCell => {
  const found = list<CalibrationCell>(r, "quality.calibration.cells").find((c) => c.cell === name);
  if (!found) throw new Error(`bench/results quality.calibration has no ${name} cell`);
  return found;
};

/** By source, the answers that would stand without the model with their own site left out, and how many are right. */
function heldOutProven(r: Results): string {
  return list<CalibrationCell>(r, "quality.calibration.cells")
    .filter((c) => c.heldOutProven > 0)
    .map((c) => `${c.cell} ${c.heldOutProvenRight} right of ${c.heldOutProven}`)
    .join(", ");
}

/** Per corpus, the answers that stand without the model when each site is judged by the others' figures. */
function crossSite(r: Results): string {
  const corpora = at(r, "quality.calibration.corpora") as Record<
    string,
    { crossSite: { answers: number; right: number } }
  >;
  return Object.entries(corpora)
    .map(([corpus, { crossSite: c }]) => `${corpus} ${c.answers ? `${c.right} right of ${c.answers}` : "none"}`)
    .join(", ");
}

function lossesTable(r: Results): string {
  const byCorpus = at(r, "quality-llm.losses.byCorpus") as Record<string, Record<string, number>>;
  return table(
    ["corpus", ...LOSS_PLACES, "timed out or failed"],
    Object.entries(byCorpus).map(([corpus, places]) => [
      corpus,
      ...LOSS_PLACES.map((place) => String(places[place] ?? 0)),
      String((places["timed out"] ?? 0) + (places.failed ?? 0)),
    ]),
  );
}

function lossesSummary(r: Results): string {
  const byCorpus = Object.values(at(r, "quality-llm.losses.byCorpus") as Record<string, Record<string, number>>);
  const sum = (places: readonly string[]) =>
    byCorpus.reduce((n, c) => n + places.reduce((m, place) => m + (c[place] ?? 0), 0), 0);
  const all = sum(Object.keys(byCorpus[0] ?? {}));
  return `${sum(READER_LIMITS)} of the ${all} losses are the reader's own`;
}

function modelPathTable(r: Results): string {
  const rows = corporaOf(r, "quality-llm").map((corpus) => [
    corpus,
    f3(num(r, `quality-llm.builtin.corpora.${corpus}.f1`)),
    prf(score(r, `quality-llm.corpora.${corpus}`)),
    prf(score(r, `quality-llm.withoutReaderLimits.${corpus}`)),
  ]);
  return table(
    ["corpus", "builtin engine alone, F1", "model path (oracle), P / R / F1", "reader's limits unscored"],
    [
      ...rows,
      ["overall", f3(num(r, "quality-llm.builtin.overall.f1")), prf(score(r, "quality-llm.overall")), ""],
      ["model tokens per page", "", String(num(r, "quality-llm.modelCalls.tokensPerPage")), ""],
      [
        "characters per call, p50 / p95",
        "",
        `${num(r, "quality-llm.modelCalls.promptCharsP50")} / ${num(r, "quality-llm.modelCalls.promptCharsP95")}`,
        "",
      ],
    ],
  );
}

function wrongByCorpus(r: Results, file: string): string {
  const wrong = corporaOf(r, file)
    .map((corpus) => [corpus, num(r, `${file}.corpora.${corpus}.fp`)] as const)
    .filter(([, fp]) => fp > 0)
    .map(([corpus, fp]) => `${corpus} ${fp}`);
  return `${num(r, `${file}.overall.fp`)} wrong answers (${wrong.join(", ")})`;
}

interface StatusFigures {
  rows: Record<string, { right: number; wrong: number; missed: number; trulyAbsent: number }>;
  figures: {
    foundPrecision: number;
    rightFound: number;
    wrongNotFound: number;
    absentTrue: number | null;
    stated: { precision: number; right: number; wrongOut: number };
  };
}

/** What each status is worth per corpus (bench/src/status-figures.ts). */
function statusTable(r: Results): string {
  const corpora = at(r, "quality.status") as Record<string, StatusFigures>;
  const rows = Object.entries(corpora).map(([corpus, { rows: byStatus, figures }]) => {
    const absent = byStatus.absent;
    return [
      CORPORA[corpus]?.label ?? corpus,
      f3(figures.foundPrecision),
      pct(figures.rightFound, 0),
      pct(figures.stated.right, 0),
      pct(figures.wrongNotFound, 0),
      absent ? `${absent.missed + absent.trulyAbsent} (${absent.missed} stated)` : "0",
      String(byStatus["not-found"] ? byStatus["not-found"].missed + byStatus["not-found"].trulyAbsent : 0),
      figures.absentTrue === null ? "–" : f3(figures.absentTrue),
    ];
  });
  return table(
    [
      "corpus",
      "`found` precision",
      "right values `found`",
      "right `found` or `derived`",
      "wrong values not `found`",
      "`absent` nulls",
      "`not-found` nulls",
      "`absent` truly absent (complete labels)",
    ],
    rows,
  );
}

/** The dev corpus asked as callers ask, against the plain run (bench:quality's variants). */
function dependabilityTable(r: Results): string {
  const rows = at(r, "quality.dependability") as Record<
    string,
    Record<"names" | "task" | "nullModel", { f1: number; ratio: number }>
  >;
  const cell = ({ f1, ratio }: { f1: number; ratio: number }) => `${f3(f1)} (${f3(ratio)}×)`;
  return table(
    ["corpus", "paraphrased names (aim ≥ 0.95×)", "with a task (aim ≥ 0.98×)", "model answering null (aim 1×)"],
    Object.entries(rows).map(([corpus, row]) => [
      CORPORA[corpus]?.label ?? corpus,
      cell(row.names),
      cell(row.task),
      cell(row.nullModel),
    ]),
  );
}

export function qualityFigures(r: Results): Figures {
  const shop = () => score(r, `quality.corpora.${SHOP}`);
  return {
    "quality.corpora": () => corporaTable(r, "quality"),
    "quality.status": () => statusTable(r),
    "quality.dependability": () => dependabilityTable(r),
    "quality.product-fields": () => productFieldsTable(r, "quality"),
    "quality.shop.precision": () => f3(shop().precision),
    // The three wrong prices are labels that read a grouped number as a decimal (named in the prose).
    "quality.shop.precision-without-price-labels": () => {
      const s = shop();
      return `${s.tp} / ${s.tp + s.fp - 3} = ${f3(s.tp / (s.tp + s.fp - 3))}`;
    },
    "quality.articles.precision": () => f3(num(r, "quality.corpora.trafilatura-eval.precision")),
    "quality.articles.right-wrong": () =>
      `${num(r, "quality.corpora.trafilatura-eval.tp")} right, ${num(r, "quality.corpora.trafilatura-eval.fp")} wrong`,
    "quality-stack.corpora": () => corporaTable(r, "quality-stack"),
    "quality-stack.product-fields": () => productFieldsTable(r, "quality-stack"),
    "quality.hybrid": () => {
      const fields = num(r, "quality.hybrid.fields");
      const prefilled = num(r, "quality.hybrid.fieldsPrefilled");
      const pages = num(r, "quality.hybrid.pages");
      const without = num(r, "quality.hybrid.pagesWithoutModelCall");
      return `${prefilled} of ${fields} fields (${pct(prefilled / fields)}), and ${without} of ${pages} pages (${pct(without / pages)})`;
    },
    "quality.evidence.in-text": () =>
      `of the ${num(r, "quality.evidence.correctValues")} values of fields scored correct, ${pct(num(r, "quality.evidence.correctWithValueInText"))}`,
    "quality.evidence.wrong-flagged": () => {
      const wrong = num(r, "quality.evidence.wrongFields");
      const share = num(r, "quality.evidence.wrongFlaggedBelow06");
      return `${Math.round(share * wrong)} of the ${wrong} wrong builtin answers (${pct(share, 0)})`;
    },
    "quality.page-sizes": () =>
      `p50 ${num(r, "quality.pageKb.p50")} KB, p95 ${num(r, "quality.pageKb.p95")} KB, up to ${(num(r, "quality.pageKb.max") / 1024).toFixed(1)} MB`,
    "quality.timing": () =>
      `p50 ${f1(num(r, "quality.timing.p50Ms"))} ms, p95 ${f1(num(r, "quality.timing.p95Ms"))} ms, max ${f1(num(r, "quality.timing.maxMs"))} ms`,
    "quality.calibration": () => calibrationTable(r),
    "quality.calibration.held-out-proven": () => heldOutProven(r),
    "quality.calibration.cross-site": () => crossSite(r),
    "quality.calibration.json-ld-integer": () =>
      `${f3(cell(r, "json-ld integer").reliability)} over ${cell(r, "json-ld integer").sites} sites`,
    "quality.calibration.byline-date": () => f3(cell(r, "byline date").reliability),
    "quality.calibration.json-ld-number": () => f3(cell(r, "json-ld number").reliability),
    "quality.calibration.label-text": () =>
      `right ${cell(r, "label text").right} times in ${cell(r, "label text").answers} but on only ${cell(r, "label text").sites} sites, and state ${f3(cell(r, "label text").reliability)}`,
    "quality.calibration.structured-text": () =>
      `JSON-LD ${f3(cell(r, "json-ld text").reliability)}, microdata ${f3(cell(r, "microdata text").reliability)}`,
    "quality-llm.corpora": () => modelPathTable(r),
    "quality-llm.losses": () => lossesTable(r),
    "quality-llm.losses.summary": () => lossesSummary(r),
    "quality-llm.overall": () =>
      `P ${f3(num(r, "quality-llm.overall.precision"))} / R ${f3(num(r, "quality-llm.overall.recall"))} / F1 ${f3(num(r, "quality-llm.overall.f1"))}, ${num(r, "quality-llm.modelCalls.tokensPerPage")} model tokens per page, ${wrongByCorpus(r, "quality-llm")}`,
    "quality-llm.f1-precision-tokens": () =>
      `F1 ${f3(num(r, "quality-llm.overall.f1"))} at precision ${f3(num(r, "quality-llm.overall.precision"))} in \`proven\` mode, for ${num(r, "quality-llm.modelCalls.tokensPerPage")} model tokens per page`,
    "quality-llm.pages-with-model": () =>
      `${num(r, "quality-llm.modelCalls.pagesWithModel")} of ${num(r, "quality-llm.cases")} pages`,
    "quality-llm-stack.overall": () => {
      const s = score(r, "quality-llm-stack.overall");
      return `P ${f3(s.precision)} / R ${f3(s.recall)} / F1 ${f3(s.f1)}`;
    },
  };
}

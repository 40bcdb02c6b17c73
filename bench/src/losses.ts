/**
 * Where the model path loses what a perfect reader would find. With the
 * oracle as the model (bench/src/oracle.ts), every field that is not right is
 * lost in exactly one place: the request failed or ran out of time, the
 * builtin engine pre-filled it wrong (its answer stood without the model: the
 * field's evidence names another source than the model), the value was not
 * in the text sent (the oracle could not answer it), or the oracle answered
 * it and the pipeline lost it afterwards (shaping, merging, grounding).
 * Two places are the reader's own limits, not the pipeline's: the oracle took
 * the text for another page of the corpus (it recognises a page by how many
 * of its labelled values the text holds, so a page whose labels are small
 * numbers wins on any text), or the label is not on the page in any form a
 * copying reader could return (labels-on-page.ts).
 */
import type { Case } from "./corpus.js";
import type { OracleCall } from "./oracle.js";
import type { Extraction } from "./runners.js";
import type { Counts } from "./score.js";

const LOSS_PLACES = [
  "timed out",
  "failed",
  "pre-filled wrong",
  "reader took another page",
  "label not on the page",
  "not in content sent",
  "lost after the model",
] as const;
export type LossPlace = (typeof LOSS_PLACES)[number];

interface Loss {
  id: string;
  corpus: string;
  field: string;
  /** The scorer's outcome ("fp": a wrong value, "fn": none, "spurious": a value where the page has none). */
  outcome: string;
  place: LossPlace;
  expected: unknown;
  predicted: unknown;
}

export interface Losses {
  /** Counts per corpus and place. */
  byCorpus: Record<string, Record<LossPlace, number>>;
  list: Loss[];
}

export interface ScoredCase {
  item: Case;
  extraction: Extraction;
  /** The scorer's outcome per labelled field ("tp", "fp", "fn", "spurious"). */
  outcomes: Record<string, string>;
  /** The model calls its request made. */
  calls: OracleCall[];
}

/** Whether a case's labelled value for a field is on its page at all (labels-on-page.ts). */
export type OnPage = (item: Case, field: string) => boolean;

export function classifyLosses(run: ScoredCase[], onPage: OnPage): Losses {
  const losses: Losses = { byCorpus: {}, list: [] };
  for (const { item, extraction, outcomes, calls } of run) {
    const asked = new Set(calls.flatMap((call) => call.fields_asked));
    const answered = new Set(calls.flatMap((call) => call.fields_answered));
    const sources = new Map([...extraction.evidence].map(([pointer, e]) => [pointer.split("/")[1], e.source]));
    const prefilled = (field: string) => !asked.has(field) || (sources.has(field) && sources.get(field) !== "model");
    for (const [field, outcome] of Object.entries(outcomes)) {
      if (outcome === "tp") continue;
      const place: LossPlace = extraction.error
        ? /deadline|timed? ?out/i.test(extraction.error)
          ? "timed out"
          : "failed"
        : prefilled(field)
          ? "pre-filled wrong"
          : calls.some((call) => call.case !== item.id)
            ? "reader took another page"
            : answered.has(field)
              ? "lost after the model"
              : !onPage(item, field)
                ? "label not on the page"
                : "not in content sent";
      losses.byCorpus[item.corpus] ??= Object.fromEntries(LOSS_PLACES.map((p) => [p, 0])) as Record<LossPlace, number>;
      const counts = losses.byCorpus[item.corpus]!;
      counts[place] += 1;
      losses.list.push({
        id: item.id,
        corpus: item.corpus,
        field,
        outcome,
        place,
        expected: item.expected[field],
        predicted: extraction.data?.[field] ?? null,
      });
    }
  }
  return losses;
}

/** Places that are the oracle reader's own limits: no pipeline could avoid these losses with it. */
export const READER_LIMITS: readonly LossPlace[] = ["reader took another page", "label not on the page"];

/** Per corpus, the counts with the fields lost to the reader's own limits left unscored: the pipeline's own ceiling. */
export function withoutReaderLimits(byCorpus: ReadonlyMap<string, Counts>, losses: Losses): Map<string, Counts> {
  const counts = new Map([...byCorpus].map(([corpus, c]) => [corpus, { ...c }]));
  for (const loss of losses.list) {
    const c = counts.get(loss.corpus);
    if (!c || !READER_LIMITS.includes(loss.place)) continue;
    if (loss.outcome !== "fn") c.fp -= 1;
    if (loss.outcome !== "spurious") c.fn -= 1;
  }
  return counts;
}

export interface ModelCallFigures {
  calls: number;
  pagesWithModel: number;
  callsPerPageWithModel: number;
  promptCharsP50: number;
  promptCharsP95: number;
  /** Model tokens per page, over all pages (pages the pre-fill answered whole count 0). */
  tokensPerPage: number;
}

export function modelCallFigures(run: ScoredCase[]): ModelCallFigures {
  const calls = run.flatMap((item) => item.calls);
  const chars = calls.map((call) => call.prompt_chars).sort((a, b) => a - b);
  const pagesWithModel = run.filter((item) => item.calls.length > 0).length;
  const tokens = run.reduce((sum, { extraction }) => sum + (extraction.tokens ?? 0), 0);
  const at = (q: number) => chars[Math.min(chars.length - 1, Math.max(0, Math.ceil(q * chars.length) - 1))] ?? 0;
  return {
    calls: calls.length,
    pagesWithModel,
    callsPerPageWithModel: Math.round((10 * calls.length) / Math.max(1, pagesWithModel)) / 10,
    promptCharsP50: at(0.5),
    promptCharsP95: at(0.95),
    tokensPerPage: Math.round(tokens / Math.max(1, run.length)),
  };
}

export function printLosses(losses: Losses, figures: ModelCallFigures): void {
  console.log(`\nWhere the model path lost values (fields not right, by place)`);
  console.log(`${"".padEnd(28)}${LOSS_PLACES.map((p) => p.padStart(26)).join("")}`);
  for (const [corpus, counts] of Object.entries(losses.byCorpus).sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`${corpus.padEnd(28)}${LOSS_PLACES.map((p) => String(counts[p]).padStart(26)).join("")}`);
  }
  console.log(
    `\nModel calls: ${figures.calls} on ${figures.pagesWithModel} pages (${figures.callsPerPageWithModel} per page that needed one); ` +
      `characters sent per call p50 ${figures.promptCharsP50}, p95 ${figures.promptCharsP95}; ${figures.tokensPerPage} model tokens per page`,
  );
}

/** Figures of `npm run bench:lists` (bench/results/lists.json, lists-llm.json with `--llm`) in bench/README.md. */
import type { Figures } from "../doc-figures.js";
import { at, f1, f3, list, num, pct, type Results, table } from "./results.js";

interface ListRun {
  records: { expected: number; found: number; extra: number };
  overall: { precision: number; recall: number; f1: number };
}

interface ListCase {
  site: string;
  extra: number;
}

const run = (r: Results, dotted: string) => at(r, dotted) as ListRun;

function runRow(label: string, s: ListRun): string[] {
  return [
    label,
    `${s.records.found} of ${s.records.expected}`,
    String(s.records.extra),
    f3(s.overall.precision),
    f3(s.overall.recall),
    f3(s.overall.f1),
  ];
}

const HEADER = ["records found", "extra", "precision", "recall", "F1"];

/** `3 of 467 (0.6%; amazon.de 2, newegg 1)`: extra records and the sites they were on. */
function extraRecords(r: Results, file: string, side: "builtin" | "model"): string {
  const s = run(r, `${file}.${side}`);
  const bySite = list<ListCase>(r, `${file}.perCase.${side}`)
    .filter((c) => c.extra > 0)
    .map((c) => `${c.site} ${c.extra}`);
  const share = pct(s.records.extra / s.records.expected);
  return `${s.records.extra} of ${s.records.expected} (${share}${bySite.length ? `; ${bySite.join(", ")}` : ""})`;
}

export function listsFigures(r: Results): Figures {
  return {
    "lists.builtin": () => table(["builtin engine", ...HEADER], [runRow("last run", run(r, "lists.builtin"))]),
    "lists.largest-page": () => {
      const page = at(r, "lists.timing.largestPage") as { id: string; kb: number; listMs: number; engineMs: number };
      return `${page.id}, ${(page.kb / 1024).toFixed(1)} MB: list extraction ${f1(page.listMs)} ms, the whole builtin engine ${f1(page.engineMs)} ms`;
    },
    "lists.timing": () =>
      `p50 ${f1(num(r, "lists.timing.builtinEngineMs.p50"))} ms, p95 ${f1(num(r, "lists.timing.builtinEngineMs.p95"))} ms (list extraction p50 ${f1(num(r, "lists.timing.listExtractionMs.p50"))}, p95 ${f1(num(r, "lists.timing.listExtractionMs.p95"))} ms)`,
    "lists-llm.model": () =>
      table(
        ["model path (oracle)", ...HEADER],
        [
          runRow("last run (builtin engine alone)", run(r, "lists-llm.builtin")),
          runRow("last run", run(r, "lists-llm.model")),
        ],
      ),
    "lists-llm.extra": () => extraRecords(r, "lists-llm", "model"),
    "lists.builtin.extra": () => extraRecords(r, "lists", "builtin"),
  };
}

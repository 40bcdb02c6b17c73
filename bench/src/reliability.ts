/**
 * The builtin engine's stated confidence against what it gets right: for
 * every top-level field it answered, the source and confidence of its
 * evidence (the lowest confidence under the field, for lists and objects)
 * and whether the scorer found the value right. Per source, the lowest
 * confidence from which the answers above it are right at least `target`
 * of the time is where hybrid extraction may trust the engine without the
 * model (services/extractor/src/prefill-calibration.ts holds the result).
 */
import type { Evidence } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";

export interface Judged {
  evidence: Map<string, Evidence>;
  /** The scorer's outcome per labelled field. */
  outcomes: Record<string, string>;
}

interface ReliabilityRow {
  source: string;
  /** Lower bound of the confidence band. */
  from: number;
  answers: number;
  right: number;
}

export interface Calibration {
  /** Per source: the lowest confidence whose answers at or above it are right >= target, with how many there were. */
  thresholds: Record<string, { minConfidence: number; answers: number; precision: number } | null>;
  rows: ReliabilityRow[];
}

const BANDS = [1, 0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0];
/** Fewer answers than this above a threshold say too little about its precision. */
const MIN_ANSWERS = 10;

/** One answer per top-level field: its evidence's source and lowest confidence. */
function judgedAnswers(cases: Judged[]): { source: string; confidence: number; right: boolean }[] {
  return cases.flatMap(({ evidence, outcomes }) =>
    Object.entries(outcomes).flatMap(([field, outcome]) => {
      if (outcome === "fn") return [];
      const under = [...evidence]
        .filter(([pointer]) => pointer === `/${field}` || pointer.startsWith(`/${field}/`))
        .map(([, e]) => e);
      if (under.length === 0) return [];
      return [
        { source: under[0]!.source, confidence: Math.min(...under.map((e) => e.confidence)), right: outcome === "tp" },
      ];
    }),
  );
}

export function calibrate(cases: Judged[], target: number): Calibration {
  const answers = judgedAnswers(cases);
  const sources = [...new Set(answers.map((a) => a.source))].sort();
  const rows: ReliabilityRow[] = [];
  const thresholds: Calibration["thresholds"] = {};
  for (const source of sources) {
    const mine = answers.filter((a) => a.source === source);
    BANDS.forEach((from, i) => {
      const to = i === 0 ? Infinity : BANDS[i - 1]!;
      const band = mine.filter((a) => a.confidence >= from && a.confidence < (i === 0 ? Infinity : to));
      if (band.length > 0) rows.push({ source, from, answers: band.length, right: band.filter((a) => a.right).length });
    });
    // The lowest band edge from which everything above is right often enough.
    let best: Calibration["thresholds"][string] = null;
    for (const from of BANDS) {
      const above = mine.filter((a) => a.confidence >= from);
      const precision = above.filter((a) => a.right).length / Math.max(1, above.length);
      if (above.length >= MIN_ANSWERS && precision >= target)
        best = { minConfidence: from, answers: above.length, precision: Math.round(precision * 1000) / 1000 };
    }
    thresholds[source] = best;
  }
  return { thresholds, rows };
}

export function printCalibration(calibration: Calibration, target: number): void {
  console.log(`\nBuiltin engine: stated confidence against observed precision (top-level answers)`);
  console.log(
    `${"source".padEnd(12)} ${"confidence".padStart(10)} ${"answers".padStart(8)} ${"right".padStart(6)} ${"precision".padStart(10)}`,
  );
  for (const row of calibration.rows) {
    console.log(
      `${row.source.padEnd(12)} ${`>= ${row.from.toFixed(2)}`.padStart(10)} ${String(row.answers).padStart(8)} ${String(row.right).padStart(6)} ${(row.right / row.answers).toFixed(3).padStart(10)}`,
    );
  }
  console.log(`\nPre-fill thresholds for precision >= ${target} (at least ${MIN_ANSWERS} answers):`);
  for (const [source, t] of Object.entries(calibration.thresholds)) {
    console.log(
      `  ${source.padEnd(12)} ${t ? `confidence >= ${t.minConfidence.toFixed(2)} (${t.answers} answers, precision ${t.precision.toFixed(3)})` : "never"}`,
    );
  }
}

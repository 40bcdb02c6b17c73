/**
 * How well evidence explains the builtin engine's answers over a corpus: of
 * the values scored correct, the share whose evidence text contains the value
 * (the text a caller is shown is where the value really is); of the fields
 * scored wrong, the share whose evidence flags a doubt (a confidence below
 * 0.6 on one of its values).
 */

import { datesIn, isoDate, MAX_TEXT, normalizeText, numbersIn } from "@winnow/extractor";
import type { Evidence } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { Outcome } from "./score.js";

export const DOUBT_BELOW = 0.6;

export interface EvidenceCounts {
  /** Non-null values (leaves and list items) of fields scored correct, and those whose evidence text contains them. */
  correctValues: number;
  contained: number;
  /** Fields scored wrong, and those with a value whose confidence is below DOUBT_BELOW. */
  wrongFields: number;
  flagged: number;
}

export function emptyEvidenceCounts(): EvidenceCounts {
  return { correctValues: 0, contained: 0, wrongFields: 0, flagged: 0 };
}

export function addEvidence(
  counts: EvidenceCounts,
  outcome: Outcome,
  field: string,
  predicted: unknown,
  evidence: Map<string, Evidence>,
): void {
  const values = leaves(predicted, `/${field.replace(/~/g, "~0").replace(/\//g, "~1")}`);
  if (outcome === "tp") {
    for (const [pointer, value] of values) {
      counts.correctValues += 1;
      if (contains(evidence.get(pointer)?.text ?? "", value)) counts.contained += 1;
    }
  } else if (outcome === "fp" || outcome === "spurious") {
    counts.wrongFields += 1;
    if (values.some(([pointer]) => (evidence.get(pointer)?.confidence ?? 1) < DOUBT_BELOW)) counts.flagged += 1;
  }
}

/** The non-null scalars of a value by JSON pointer. */
function leaves(value: unknown, pointer: string): [string, unknown][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, `${pointer}/${index}`));
  if (typeof value === "object")
    return Object.entries(value).flatMap(([key, inner]) =>
      leaves(inner, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`),
    );
  return [[pointer, value]];
}

/**
 * The text writes the value: a string in any case and spacing (each line of
 * one the engine wrote as lines, such as several authors; the start of one
 * longer than evidence text may be), a number in a common written form, an
 * ISO date in any written form. A yes/no is read from a text rather than
 * written in it: any text counts.
 */
function contains(text: string, value: unknown): boolean {
  if (!text) return false;
  if (typeof value === "boolean") return true;
  if (typeof value === "number") return numbersIn(text).has(Math.abs(value));
  const wanted = String(value);
  const written = normalizeText(text);
  const lines = wanted.split("\n").map(normalizeText);
  if (lines.every((line) => written.includes(line))) return true;
  if (text.length >= MAX_TEXT && normalizeText(wanted).startsWith(written)) return true;
  return (
    /^\d{4}-\d{2}-\d{2}/.test(wanted) &&
    (isoDate(text) === wanted.slice(0, 10) || datesIn(text).some(({ date }) => date === wanted.slice(0, 10)))
  );
}

/**
 * What hybrid extraction trusts the builtin engine with. Its stated
 * confidences were held against the dev corpus's labels: `npm run
 * bench:quality` prints the reliability table (stated confidence against
 * observed precision, per evidence source and kind of value) and the
 * thresholds below, the lowest confidence from which at least 98% of its
 * answers were right, over at least 10 answers. Only such a value stands
 * without the model; any other is asked of the model, and kept only where
 * the model finds none.
 */
import type { SchemaNode } from "@winnow/platform";
import { type EvidenceMap, underFields } from "../schema/evidence.js";
import type { NameHints } from "../schema/field-names.js";

export type ValueKind = "text" | "date" | "number" | "integer" | "boolean" | "list" | "object";

/** A field's kind of value: what its answers have in common, whatever the page (a date is a text that names a day). */
export function valueKind(node: SchemaNode, hints: NameHints): ValueKind {
  switch (node.kind) {
    case "scalar":
      if (node.type !== "string") return node.type;
      return hints.format === "iso8601" || hints.subject.some((word) => word === "date" || word === "time")
        ? "date"
        : "text";
    case "array":
    case "any-array":
      return "list";
    default:
      return "object";
  }
}

/**
 * Per "<evidence source> <kind>": the lowest stated confidence from which a value needs no model
 * (bench/results/quality.json, `calibration`).
 */
const PROVEN_FROM: ReadonlyMap<string, number> = new Map([
  ["json-ld integer", 0.85],
  ["microdata integer", 0.85],
  ["label text", 0.6],
  ["layout boolean", 0.6],
]);

/** Every value under the field comes from a source and kind proven at its stated confidence. */
export function isProven(evidence: EvidenceMap, field: string, kind: ValueKind): boolean {
  const under = [...underFields(evidence, [field]).values()];
  return under.length > 0 && under.every((e) => e.confidence >= (PROVEN_FROM.get(`${e.source} ${kind}`) ?? Infinity));
}

/**
 * Hybrid extraction's last step: the builtin engine's reading and the model's,
 * field by field. The model fills what the builtin engine left and corrects
 * what it read, but never erases what the page states. A model's null is no
 * reading (the model did not see it, or did not recognise it), so it never
 * replaces a value the builtin engine read from the page's markup or data,
 * which keeps its own status. A shorter list does not replace a grounded one
 * (its evidence shows every value on the page). Where both answer and
 * disagree, the model's value is kept (it corrects) unless grounding did not
 * find it on the page while the builtin engine's is grounded; the field is
 * warned of as a `merge-conflict`, and its evidence holds the value not kept
 * (Evidence.alternative).
 *
 * A list is kept whole from one engine, the longer of the two when the
 * builtin engine's is grounded (and the model's when more of its values are
 * on the page, though some are not), rather than merged record by record: a model
 * rewrites records (a date in another form, a title trimmed), so which of the
 * builtin engine's records a model's record is cannot be told reliably, and a
 * record listed twice is worse than a list of one reading.
 */
import { isDeepStrictEqual } from "node:util";
import type { Evidence, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { childPointer, evidenceMessages, isUnder, underFields } from "../schema/evidence.js";
import { isComplete } from "../schema/shape.js";
import type { Prefill } from "./prefill.js";

/** The model's answer as grounding left it. */
export interface ModelReading {
  data: Record<string, unknown>;
  evidence: Evidence[];
  /** Top-level fields holding a value grounding did not find on the page. */
  ungrounded: ReadonlySet<string>;
  warnings: Warning[];
}

export interface Merged {
  data: Record<string, unknown>;
  evidence: Evidence[];
  warnings: Warning[];
  /** Top-level fields whose value is the builtin engine's reading, which the model did not confirm. */
  builtinFields: string[];
}

type Choice = { from: "builtin" | "confirmed" | "model" } | { from: "builtin" | "model"; conflict: string };

/** The answer of each of `fields` (the schema's, in order), from the pre-fill and the model's reading. */
export function mergeReadings(fields: string[], pre: Prefill, model: ModelReading): Merged {
  const choices = new Map(fields.map((name) => [name, choose(name, pre, model)]));
  const named = (...from: string[]) => fields.filter((name) => from.includes(choices.get(name)!.from));
  const fromBuiltin = named("builtin", "confirmed");
  const evidence = [
    ...evidenceMessages(underFields(pre.evidence, fromBuiltin)),
    ...model.evidence.filter((e) => !isUnder(e.pointer, fromBuiltin)),
  ];
  // What the model's answer says of its own values (ungrounded, a list it cut short) does not hold of the builtin
  // engine's.
  const warnings = model.warnings.filter((w) => !isUnder(w.path, fromBuiltin));
  for (const [name, choice] of choices) {
    if (!("conflict" in choice)) continue;
    const kept = choice.from === "builtin" ? pre.data[name] : model.data[name];
    const other = choice.from === "builtin" ? model.data[name] : pre.data[name];
    warnings.push({
      code: "merge-conflict",
      message: `the builtin engine and the model read different values: kept ${brief(kept)} (${choice.conflict}), not ${brief(other)}`,
      path: childPointer("", name),
    });
    withAlternative(evidence, name, alternativeOf(name, choice.from === "builtin" ? "model" : "builtin", pre, model));
  }
  return {
    data: Object.fromEntries(
      fields.map((name) => [name, fromBuiltin.includes(name) ? pre.data[name] : (model.data[name] ?? null)]),
    ),
    evidence,
    warnings,
    builtinFields: named("builtin"),
  };
}

function choose(name: string, pre: Prefill, model: ModelReading): Choice {
  if (pre.trusted.includes(name)) return { from: "builtin" };
  const builtin = pre.data[name];
  const read = model.data[name] ?? null;
  if (isComplete(read) && isDeepStrictEqual(read, builtin)) return { from: "confirmed" };
  const evidence = [...underFields(pre.evidence, [name]).values()];
  if (holdsNothing(builtin) || evidence.length === 0) return { from: "model" };
  if (holdsNothing(read)) return { from: "builtin" };
  if (!evidence.every((e) => e.grounded))
    return { from: "model", conflict: "the builtin engine's value is not shown on the page" };
  if (Array.isArray(read) && Array.isArray(builtin) && read.length < builtin.length)
    return { from: "builtin", conflict: "the model's list is shorter" };
  if (model.ungrounded.has(name) && !showsMoreOfThePage(name, pre, model))
    return { from: "builtin", conflict: "the model's value is not on the page" };
  return { from: "model", conflict: "the model's reading corrects the builtin engine's" };
}

/**
 * A model's list with values grounding did not find still holds more of what the page shows than the builtin engine's
 * list when more of its values are on the page than the builtin engine read at all (a column the builtin engine left
 * null, one value of many written otherwise): one value off the page does not cost the whole list. Its values off the
 * page keep their `ungrounded` warnings.
 */
function showsMoreOfThePage(name: string, pre: Prefill, model: ModelReading): boolean {
  if (!Array.isArray(model.data[name]) || !Array.isArray(pre.data[name])) return false;
  const grounded = model.evidence.filter((e) => e.grounded && isUnder(e.pointer, [name])).length;
  return grounded > underFields(pre.evidence, [name]).size;
}

/** Null, an empty list, or an object of such: nothing read. */
function holdsNothing(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.values(value).every(holdsNothing);
  return false;
}

/** The value not kept, as the field's evidence states it: with where its engine read it. */
function alternativeOf(name: string, from: "builtin" | "model", pre: Prefill, model: ModelReading) {
  const pointer = childPointer("", name);
  const value = from === "builtin" ? pre.data[name] : model.data[name];
  const under =
    from === "builtin"
      ? evidenceMessages(underFields(pre.evidence, [name]))
      : model.evidence.filter((e) => isUnder(e.pointer, [name]));
  return {
    valueJson: JSON.stringify(value),
    source: under[0]?.source ?? from,
    text: under.find((e) => e.pointer === pointer)?.text ?? "",
    grounded: under.length > 0 && under.every((e) => e.grounded),
  };
}

/**
 * Sets the alternative on the field's own evidence; a list or an object has none of its own (its values have), so it
 * is given one that sums up its values': the least confidence, grounded when all are.
 */
function withAlternative(evidence: Evidence[], name: string, alternative: Evidence["alternative"]): void {
  const pointer = childPointer("", name);
  const own = evidence.findIndex((e) => e.pointer === pointer);
  if (own >= 0) {
    evidence[own] = { ...evidence[own]!, alternative };
    return;
  }
  const under = evidence.filter((e) => isUnder(e.pointer, [name]));
  evidence.push({
    pointer,
    source: under[0]?.source ?? "",
    text: "",
    selector: "",
    confidence: under.length > 0 ? Math.min(...under.map((e) => e.confidence)) : 0,
    grounded: under.every((e) => e.grounded),
    status: "",
    alternative,
  });
}

/** A value in a warning's message: its JSON, cut short. */
function brief(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  return json.length > 120 ? `${json.slice(0, 117)}...` : json;
}

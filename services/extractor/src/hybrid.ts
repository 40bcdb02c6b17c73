/**
 * Hybrid extraction: the builtin engine answers the fields it is confident
 * about (it leaves the others null), the model is asked only for the rest,
 * and the two answers are merged. A field the builtin engine answers is left
 * out of the model's schema, so it costs no output tokens; a page it answers
 * whole costs no model call at all.
 */
import type { ObjectNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "./engines/builtin.js";
import type { Page } from "./page.js";
import { shape } from "./shape.js";

export interface Prefill {
  /** The builtin engine's answer, in the schema's shape. */
  data: Record<string, unknown>;
  /** Top-level fields it answered completely, in schema order. */
  filled: string[];
  /** Top-level fields left for the model, in schema order (empty when none). */
  remaining: string[];
}

/** Runs the builtin engine; call it before anything removes parts of the page's document. */
export function prefill(tree: ObjectNode, page: Page): Prefill {
  const { data } = shape(tree, extractBuiltin(tree, page));
  const filled = tree.fields.filter((field) => isComplete(data[field.name])).map((field) => field.name);
  return { data, filled, remaining: tree.fields.map((field) => field.name).filter((name) => !filled.includes(name)) };
}

/** The model's answer for the remaining fields merged with the pre-filled ones, in the schema's field order. */
export function merge(tree: ObjectNode, pre: Prefill, model: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(tree.fields.map((field) => [field.name, pre.filled.includes(field.name) ? pre.data[field.name] : (model[field.name] ?? null)]));
}

/** A warning that says which fields the builtin engine answered, so callers see what the model did not. */
export function prefillWarning(pre: Prefill): Warning {
  const total = pre.filled.length + pre.remaining.length;
  const rest = pre.remaining.length === 0 ? "no model call was needed" : "the model was asked for the rest";
  return { code: "prefilled", message: `${pre.filled.length} of ${total} fields answered by the builtin engine (${pre.filled.join(", ")}); ${rest}`, path: "" };
}

/** A value with nothing left to find: not null, not an empty list, and no null inside an object. */
export function isComplete(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).every(isComplete);
  return true;
}

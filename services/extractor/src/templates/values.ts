/**
 * Values as the template learner compares them: raw text read into a
 * field's type by shape.ts (the one reader of answers), and two answers
 * compared as the same value (text after normalisation, numbers to the
 * cent, lists item by item).
 */
import type { Field } from "@winnow/platform";
import { shape } from "../shape.js";
import { normalizeText } from "../text-match.js";

/** A raw located text (or list of texts) read into the field's type; null when it does not read as one. */
export function readAs(field: Field, raw: unknown): unknown {
  return shape({ kind: "object", fields: [field] }, { [field.name]: raw }).data[field.name] ?? null;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) < 0.005;
  if (typeof a === "string" && typeof b === "string") return normalizeText(a) === normalizeText(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  return a === b && a !== null && a !== undefined;
}

/** What a locator can answer: a scalar, or a list of strings (lists of objects are left to the other engines). */
export function isLearnable(field: Field): boolean {
  const { node } = field;
  return node.kind === "scalar" || (node.kind === "array" && node.items.kind === "scalar" && node.items.type === "string");
}

/** A value worth learning from: present, and not an empty list. */
export function isPresentValue(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return false;
  return !Array.isArray(value) || (value.length > 0 && value.every((item) => typeof item === "string" && item.trim() !== ""));
}

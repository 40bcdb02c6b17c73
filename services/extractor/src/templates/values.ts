/**
 * Values as the template learner compares them: raw text read into a
 * field's type by shape.ts (the one reader of answers), and two answers
 * compared as the same value (text after normalisation, numbers to the
 * cent, lists item by item).
 */
import type { Field } from "@winnow/platform";
import { isRecord, normalizeText } from "../page/text-match.js";
import { nameHints } from "../schema/field-names.js";
import { shape } from "../schema/shape.js";

/**
 * A raw located text (or list of texts) read into the field's type; null
 * when it does not read as one. shape.ts keeps a date it cannot read as
 * written ("12-6-2010": which is the month?); a template answers only in
 * the form the field's name asks for.
 */
export function readAs(field: Field, raw: unknown): unknown {
  const value = shape({ kind: "object", fields: [field] }, { [field.name]: raw }).data[field.name] ?? null;
  const iso = nameHints(field.name).format === "iso8601";
  return iso && typeof value === "string" && !/^\d{4}-\d{2}-\d{2}/.test(value) ? null : value;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) < 0.005;
  if (typeof a === "string" && typeof b === "string") return normalizeText(a) === normalizeText(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    // Objects (items of a list): every field the same, absent on both counting as the same.
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every(
      (key) => ((a[key] ?? null) === null && (b[key] ?? null) === null) || sameValue(a[key], b[key]),
    );
  }
  return a === b && a !== null && a !== undefined;
}

/**
 * What a locator can answer: a scalar, a list of strings, or a list of objects with scalar fields (read from each
 * item).
 */
export function isLearnable(field: Field): boolean {
  const { node } = field;
  if (node.kind === "scalar") return true;
  if (node.kind !== "array") return false;
  const { items } = node;
  return (
    (items.kind === "scalar" && items.type === "string") ||
    (items.kind === "object" && items.fields.some((f) => f.node.kind === "scalar"))
  );
}

/** A value worth learning from: present, and not an empty list. */
export function isPresentValue(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return false;
  return (
    !Array.isArray(value) ||
    (value.length > 0 && value.every((item) => (typeof item === "string" ? item.trim() !== "" : isRecord(item))))
  );
}

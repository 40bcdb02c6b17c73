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

/** Records of a long list a reading may miss or add and still agree with another: a model skips one, a page adds one. */
const LIST_SLACK = 0.1;

/**
 * Whether a template's reading agrees with a value known with confidence:
 * the same value, or for a list of records nearly the same records (all
 * but one in ten found among the reading's, and about as many).
 */
export function agrees(read: unknown, value: unknown): boolean {
  if (!isRecordList(read) || !isRecordList(value)) return sameValue(read, value);
  const slack = Math.max(1, Math.floor(LIST_SLACK * value.length));
  if (Math.abs(read.length - value.length) > slack) return false;
  const unmatched = [...read];
  let missed = 0;
  for (const record of value) {
    const at = unmatched.findIndex((other) => sameRecord(other, record));
    if (at >= 0) unmatched.splice(at, 1);
    else missed += 1;
  }
  return missed <= slack;
}

/**
 * Two records alike: every field the same, where a false is alike to no value (a record without an ad's marker:
 * a template that never saw an ad reads no marker at all).
 */
function sameRecord(read: Record<string, unknown>, value: Record<string, unknown>): boolean {
  const unmarked = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).map(([key, v]) => [key, v === false ? null : v]));
  return sameValue(unmarked(read), unmarked(value));
}

function isRecordList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.length > 0 && value.every(isRecord);
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
    (items.kind === "object" && items.fields.some((f) => f.node.kind !== "object"))
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

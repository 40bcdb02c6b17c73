/**
 * Scores predictions against the corpus's labels by the rules of the corpus
 * README (`../shared/corpus/README.md`), exactly: for every (case, field)
 * whose expected value is not null, a match is a true positive, a null
 * prediction a false negative, and a wrong non-null prediction both a false
 * positive and a false negative. An empty list counts as null: it predicts
 * nothing. Where a corpus's labels are complete (the shop pages), a null
 * label says the page has no such value, so a value there is a false
 * positive alone (there was nothing to find).
 */
import { decodeHTML } from "entities";

/** A schema in the public schema language, as the corpus states it. */
export type SchemaValue = string | SchemaValue[] | { [key: string]: SchemaValue };

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

/** "spurious": a value for a field the page has none of (only where labels are complete). */
export type Outcome = "tp" | "fp" | "fn" | "spurious";

/**
 * Corpora whose labels are complete for the fields named: a null label there
 * means the page has no such value (the corpus README says which).
 */
const COMPLETE_LABELS = new Map([["zyte-product-benchmark", new Set(["price", "sku", "brand", "in_stock"])]]);

export function labelsComplete(corpus: string, field: string): boolean {
  return COMPLETE_LABELS.get(corpus)?.has(field) ?? false;
}

/**
 * The outcome for one field; undefined when there is nothing to score: the
 * field is not labelled (expected null), or its labels are complete and both
 * the label and the prediction say the page has no value.
 */
export function scoreField(
  name: string,
  schema: SchemaValue,
  expected: unknown,
  predicted: unknown,
  complete = false,
): Outcome | undefined {
  if (expected === null || expected === undefined) return complete && !isAbsent(predicted) ? "spurious" : undefined;
  if (isAbsent(predicted)) return "fn";
  return matches(name, schema, expected, predicted) ? "tp" : "fp";
}

export function addOutcome(counts: Counts, outcome: Outcome): void {
  if (outcome === "tp") counts.tp += 1;
  else if (outcome === "fn") counts.fn += 1;
  else if (outcome === "spurious") counts.fp += 1;
  else {
    // A wrong value is a false positive and also leaves the true value unfound.
    counts.fp += 1;
    counts.fn += 1;
  }
}

export interface Metrics extends Counts {
  precision: number;
  recall: number;
  f1: number;
}

/** Precision, recall and F1; a ratio with nothing to count is 0 (a field never predicted has no precision to claim). */
export function metrics(counts: Counts): Metrics {
  const precision = ratio(counts.tp, counts.tp + counts.fp);
  const recall = ratio(counts.tp, counts.tp + counts.fn);
  return {
    ...counts,
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
  };
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

function isAbsent(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

/** Whether a prediction matches the expected value, `{"$any": [...]}` alternatives included. */
export function matches(name: string, schema: SchemaValue, expected: unknown, predicted: unknown): boolean {
  if (isAlternatives(expected))
    return expected.$any.some((alternative) => matches(name, schema, alternative, predicted));
  if (isAbsent(predicted)) return isAbsent(expected);
  if (Array.isArray(schema)) {
    if (!Array.isArray(expected) || !Array.isArray(predicted)) return false;
    return listF1(expected, predicted, (e, p) => matches(name, schema[0] ?? "string", e, p)) >= 0.8;
  }
  if (typeof schema === "object") {
    if (!isRecord(expected) || !isRecord(predicted)) return false;
    // Every labelled key must match; unlabelled (null) keys are not scored.
    return Object.entries(expected).every(
      ([key, value]) =>
        value === null ||
        (Object.hasOwn(schema, key) &&
          matches(key, schema[key]!, value, Object.hasOwn(predicted, key) ? predicted[key] : null)),
    );
  }
  switch (schema) {
    case "number":
      return (
        typeof expected === "number" && typeof predicted === "number" && Math.abs(expected - predicted) <= 0.005 + 1e-9
      );
    case "integer":
    case "boolean":
      return expected === predicted;
    default:
      return stringsMatch(name, expected, predicted);
  }
}

function stringsMatch(name: string, expected: unknown, predicted: unknown): boolean {
  if (typeof expected === "object" || typeof predicted === "object") return false;
  const [e, p] = [String(expected), String(predicted)];
  if (name.toLowerCase().includes("iso8601")) return e.trim().slice(0, 10) === p.trim().slice(0, 10);
  return normalizeText(e) === normalizeText(p) || tokenF1(e, p) >= 0.8;
}

/** NFKC, HTML entities decoded, lower case, whitespace collapsed, surrounding punctuation removed. */
export function normalizeText(text: string): string {
  return decodeHTML(text)
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/gu, " ")
    .trim()
    .replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, "");
}

/** F1 of the two texts' word tokens, counted as multisets. */
export function tokenF1(a: string, b: string): number {
  const tokens = (text: string) =>
    normalizeText(text)
      .split(/[^\p{L}\p{N}]+/u)
      .filter((t) => t.length > 0);
  const [ta, tb] = [tokens(a), tokens(b)];
  if (ta.length === 0 || tb.length === 0) return ta.length === tb.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of ta) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of tb) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      common += 1;
      counts.set(t, left - 1);
    }
  }
  if (common === 0) return 0;
  const [precision, recall] = [common / tb.length, common / ta.length];
  return (2 * precision * recall) / (precision + recall);
}

/**
 * Item-level F1 of two lists, items paired one to one by the item rule: a
 * maximum bipartite matching (augmenting paths), so an early greedy pairing
 * cannot take an item another one needed.
 */
export function listF1<E, P>(expected: E[], predicted: P[], itemMatches: (e: E, p: P) => boolean): number {
  if (expected.length === 0 || predicted.length === 0) return expected.length === predicted.length ? 1 : 0;
  const edges = expected.map((e) => predicted.flatMap((p, j) => (itemMatches(e, p) ? [j] : [])));
  const owner = new Array<number>(predicted.length).fill(-1);
  const assign = (i: number, seen: boolean[]): boolean => {
    for (const j of edges[i]!) {
      if (seen[j]) continue;
      seen[j] = true;
      if (owner[j] === -1 || assign(owner[j]!, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  let matched = 0;
  for (let i = 0; i < expected.length; i += 1)
    if (assign(i, new Array<boolean>(predicted.length).fill(false))) matched += 1;
  if (matched === 0) return 0;
  const [precision, recall] = [matched / predicted.length, matched / expected.length];
  return (2 * precision * recall) / (precision + recall);
}

function isAlternatives(value: unknown): value is { $any: unknown[] } {
  return isRecord(value) && Array.isArray(value.$any) && Object.keys(value).length === 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

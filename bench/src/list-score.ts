/**
 * Scores a listing page's answer record by record, by the rules of the
 * corpus README (`../shared/corpus/README.md`, "Listing pages"): predicted
 * records are paired one to one with expected records, greedily by how many
 * fields agree (by the value rules of score.ts), a pair needing at least
 * half of the expected record's non-null fields to agree. Then per field: a
 * matching value is a true positive; a wrong or unexpected non-null value a
 * false positive (and a false negative where a value was expected); an
 * expected value left null, or in a record nobody matched, a false
 * negative; every non-null value of a predicted record matched to no
 * expected record a false positive.
 */
import { addOutcome, type Counts, matches, type SchemaValue } from "./score.js";

export interface RecordScore {
  expected: number;
  predicted: number;
  /** Expected records paired with a predicted one. */
  found: number;
  /** Predicted records paired with none. */
  extra: number;
  /** Counts per item field. */
  fields: Map<string, Counts>;
}

type Item = Record<string, unknown>;

/** The item schema of a case's list field (`{"posts": [{...}]}` → `{...}`), or undefined when the field is not a list of objects. */
export function itemSchemaOf(schema: SchemaValue): Record<string, SchemaValue> | undefined {
  const item = Array.isArray(schema) ? schema[0] : undefined;
  return item !== undefined && typeof item === "object" && !Array.isArray(item) ? item : undefined;
}

/** Told of every value a predicted record holds: its record's index, its field, and whether it is right. */
export type ValueJudge = (record: number, name: string, right: boolean) => void;

export function scoreRecords(
  item: Record<string, SchemaValue>,
  expectedList: unknown,
  predictedList: unknown,
  judge: ValueJudge = () => {},
): RecordScore {
  const expected = asItems(expectedList);
  const predicted = asItems(predictedList);
  const names = Object.keys(item);
  const fields = new Map(names.map((name) => [name, { tp: 0, fp: 0, fn: 0 }]));
  const present = (value: unknown) =>
    value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0);
  const agree = (name: string, e: Item, p: Item) =>
    present(e[name]) && present(p[name]) && matches(name, item[name]!, e[name], p[name]);

  // Every pair that may match, best first: most fields agreeing, then the nearest in page order.
  const pairs: { e: number; p: number; agreeing: number }[] = [];
  expected.forEach((e, i) => {
    const labelled = names.filter((name) => present(e[name])).length;
    if (labelled === 0) return;
    predicted.forEach((p, j) => {
      const agreeing = names.filter((name) => agree(name, e, p)).length;
      if (agreeing * 2 >= labelled) pairs.push({ e: i, p: j, agreeing });
    });
  });
  pairs.sort((a, b) => b.agreeing - a.agreeing || Math.abs(a.e - a.p) - Math.abs(b.e - b.p) || a.e - b.e);
  const partner = new Array<number>(expected.length).fill(-1);
  const taken = new Array<boolean>(predicted.length).fill(false);
  for (const { e, p } of pairs) {
    if (partner[e] !== -1 || taken[p]) continue;
    partner[e] = p;
    taken[p] = true;
  }

  expected.forEach((e, i) => {
    const j = partner[i]!;
    const p = j === -1 ? undefined : predicted[j];
    for (const name of names) {
      const counts = fields.get(name)!;
      const [want, got] = [e[name], p?.[name]];
      if (!present(want)) {
        if (present(got)) {
          counts.fp += 1;
          judge(j, name, false);
        }
      } else if (!present(got)) counts.fn += 1;
      else {
        const right = matches(name, item[name]!, want, got);
        addOutcome(counts, right ? "tp" : "fp");
        judge(j, name, right);
      }
    }
  });
  predicted.forEach((p, j) => {
    if (taken[j]) return;
    for (const name of names)
      if (present(p[name])) {
        fields.get(name)!.fp += 1;
        judge(j, name, false);
      }
  });
  const found = partner.filter((p) => p !== -1).length;
  return { expected: expected.length, predicted: predicted.length, found, extra: predicted.length - found, fields };
}

function asItems(value: unknown): Item[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => (typeof item === "object" && item !== null && !Array.isArray(item) ? (item as Item) : {}));
}

/** Adds one score's counts into a running total. */
export function addScore(total: RecordScore, score: RecordScore): void {
  total.expected += score.expected;
  total.predicted += score.predicted;
  total.found += score.found;
  total.extra += score.extra;
  for (const [name, counts] of score.fields) {
    const into = total.fields.get(name) ?? { tp: 0, fp: 0, fn: 0 };
    into.tp += counts.tp;
    into.fp += counts.fp;
    into.fn += counts.fn;
    total.fields.set(name, into);
  }
}

export function emptyScore(): RecordScore {
  return { expected: 0, predicted: 0, found: 0, extra: 0, fields: new Map() };
}

/** All fields' counts together. */
export function sumFields(score: RecordScore): Counts {
  const sum = { tp: 0, fp: 0, fn: 0 };
  for (const counts of score.fields.values()) {
    sum.tp += counts.tp;
    sum.fp += counts.fp;
    sum.fn += counts.fn;
  }
  return sum;
}

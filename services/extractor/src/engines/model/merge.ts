/**
 * Merges the answers for the parts of a long page, in code (no further model
 * call), in page order: a scalar comes from the first part that has one, and
 * a different value in a later part is reported as a "merge-conflict"
 * warning. Lists are concatenated. A list of values is a set: an item equal
 * after normalisation to one before it is dropped. A list of records is not:
 * two records that share every value are two records (two listings of one
 * product), so a record is dropped only when it is the same record read
 * twice: equal to a record of an earlier part whose structured data block
 * states it (the page's data lists the records its text shows again).
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { isRecord, ShownText, valueKey } from "../../page/text-match.js";
import { PAGE_TEXT_MARK } from "./content.js";

/**
 * How many records of the page's list of a top-level field show a record (undefined: no list to hold it against).
 */
export type ShownTimes = (field: string, record: unknown) => number | undefined;

/**
 * `answers` are already shaped to the tree (shape.ts), in page order; `texts[i]` is the text part i was read from;
 * `shownTimes` holds records against the lists the page's layout shows.
 */
export function mergeAnswers(
  tree: ObjectNode,
  answers: Array<Record<string, unknown>>,
  texts: string[],
  shownTimes: ShownTimes = () => undefined,
): { data: Record<string, unknown>; warnings: Warning[] } {
  if (answers.length === 1) return { data: answers[0]!, warnings: [] };
  const warnings: Warning[] = [];
  // The structured data block comes before the page text: parts before the one where the page text starts are all data.
  const start = texts.findIndex((text) => text.includes(PAGE_TEXT_MARK));
  const parts = texts.map((text, i) => {
    const data = start < 0 || i < start ? text : i === start ? text.slice(0, text.indexOf(PAGE_TEXT_MARK)) : "";
    return new ShownText(data);
  });
  const data = mergeObject(tree, answers, "", { warnings, parts, shownTimes });
  return { data, warnings };
}

interface Merge {
  warnings: Warning[];
  parts: ShownText[];
  shownTimes: ShownTimes;
}

/** `values[i]` is part i's value (null where it has none): parts stay aligned to their texts at every depth. */
function mergeObject(node: ObjectNode, values: unknown[], path: string, merge: Merge): Record<string, unknown> {
  // fromEntries defines own properties: a field named "__proto__" stays data.
  return Object.fromEntries(
    node.fields.map((field) => [
      field.name,
      mergeNode(
        field.node,
        values.map((value) => (isRecord(value) && Object.hasOwn(value, field.name) ? value[field.name] : null)),
        `${path}/${field.name}`,
        merge,
      ),
    ]),
  );
}

function mergeNode(node: SchemaNode, values: unknown[], path: string, merge: Merge): unknown {
  const present = values.filter((value) => value !== null && value !== undefined);
  if (present.length === 0) return null;
  switch (node.kind) {
    case "object":
      return mergeObject(node, values, path, merge);
    case "array":
      if (node.items.kind === "object")
        return mergeRecords(values, merge.parts, (record) => merge.shownTimes(path.slice(1), record));
      return dedupe((present as unknown[][]).flat());
    case "any-array":
      return dedupe((present as unknown[][]).flat());
    case "scalar":
    case "any-object": {
      const [first, ...rest] = present;
      const others = [
        ...new Set(rest.filter((value) => valueKey(value) !== valueKey(first)).map((value) => JSON.stringify(value))),
      ];
      if (others.length > 0) {
        merge.warnings.push({
          code: "merge-conflict",
          message: `parts of the page disagree: kept ${JSON.stringify(first)} from the first part that has it, not ${others.join(", ")}`,
          path,
        });
      }
      return first;
    }
  }
}

function dedupe(items: unknown[]): unknown[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = valueKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Each part's records in page order. A record is the same record read twice, and dropped, when it equals an earlier
 * part's record that that part's structured data states; when it is part of another part's record: its values are
 * some of that record's, fewer of them (a record a part boundary or a sidebar showed in part); or when earlier parts
 * returned it as often as the page's list shows it (the list holds it once; a carousel elsewhere repeats it).
 */
function mergeRecords(
  values: unknown[],
  parts: ShownText[],
  shownTimes: (record: unknown) => number | undefined,
): unknown[] {
  const read = values.flatMap((value, part) =>
    Array.isArray(value) ? value.map((record) => ({ record, part, key: valueKey(record) })) : [],
  );
  const kept: typeof read = [];
  read.forEach(({ record, part, key }, i) => {
    const readTwice = read.some(
      (other, j) => j < i && other.part < part && other.key === key && (parts[other.part]?.shows(record) ?? false),
    );
    if (readTwice || read.some((other) => other.part !== part && isPartOf(record, other.record))) return;
    const before = kept.filter((other) => other.part < part && other.key === key).length;
    if (before > 0 && before >= Math.max(1, shownTimes(record) ?? Number.POSITIVE_INFINITY)) return;
    kept.push(read[i]!);
  });
  return kept.map(({ record }) => record);
}

/** `part`'s non-null values are all `whole`'s, and `whole` has more of them. */
function isPartOf(part: unknown, whole: unknown): boolean {
  if (!isRecord(part) || !isRecord(whole)) return false;
  const present = (record: Record<string, unknown>) =>
    Object.entries(record).filter(([, value]) => value !== null && value !== false);
  const own = present(part);
  return own.length < present(whole).length && own.every(([name, value]) => valueKey(value) === valueKey(whole[name]));
}

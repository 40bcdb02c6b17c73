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
import { normalizeText, numbersIn, valueKey } from "../../page/text-match.js";
import { PAGE_TEXT_MARK } from "./content.js";

/** `answers` are already shaped to the tree (shape.ts), in page order; `texts[i]` is the text part i was read from. */
export function mergeAnswers(
  tree: ObjectNode,
  answers: Array<Record<string, unknown>>,
  texts: string[],
): { data: Record<string, unknown>; warnings: Warning[] } {
  if (answers.length === 1) return { data: answers[0]!, warnings: [] };
  const warnings: Warning[] = [];
  const parts = texts.map((text) => new PartText(text));
  const data = mergeObject(tree, answers, "", { warnings, parts });
  return { data, warnings };
}

interface Merge {
  warnings: Warning[];
  parts: PartText[];
}

/** `values[i]` is part i's value (null where it has none): parts stay aligned to their texts at every depth. */
function mergeObject(node: ObjectNode, values: unknown[], path: string, merge: Merge): Record<string, unknown> {
  // fromEntries defines own properties: a field named "__proto__" stays data.
  return Object.fromEntries(
    node.fields.map((field) => [
      field.name,
      mergeNode(
        field.node,
        values.map((value) => (isObject(value) && Object.hasOwn(value, field.name) ? value[field.name] : null)),
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
      if (node.items.kind === "object") return mergeRecords(values, merge.parts);
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

/** Each part's records in page order; one equal to an earlier part's record that its structured data states is dropped. */
function mergeRecords(values: unknown[], parts: PartText[]): unknown[] {
  const merged: unknown[] = [];
  const earlier = new Map<string, number[]>();
  values.forEach((value, part) => {
    if (!Array.isArray(value)) return;
    const added = new Map<string, number[]>();
    for (const record of value) {
      const key = valueKey(record);
      const seenIn = earlier.get(key) ?? [];
      if (seenIn.some((before) => parts[before]?.shows(record) ?? false)) continue;
      merged.push(record);
      added.set(key, [...(added.get(key) ?? []), part]);
    }
    for (const [key, seen] of added) earlier.set(key, [...(earlier.get(key) ?? []), ...seen]);
  });
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A part's structured data block as records are looked for in it: every string and number of a record stated there. */
class PartText {
  private readonly text: string;
  private numbers: Set<number> | undefined;

  constructor(part: string) {
    const at = part.indexOf(PAGE_TEXT_MARK);
    this.text = normalizeText(at < 0 ? part : part.slice(0, at));
  }

  shows(value: unknown): boolean {
    if (typeof value === "string") return this.text.includes(normalizeText(value));
    if (typeof value === "number") {
      this.numbers ??= numbersIn(this.text);
      return this.numbers.has(value);
    }
    if (Array.isArray(value)) return value.every((item) => this.shows(item));
    if (isObject(value)) return Object.values(value).every((item) => this.shows(item));
    return true;
  }
}

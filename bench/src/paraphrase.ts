/**
 * Field names as another caller would write them: a corpus's cases with
 * every schema field renamed by a map (`bench/paraphrased-names.json`), in
 * list items and nested objects too, and the expected values renamed the
 * same way, so the same pages are scored against the same labels under
 * names nobody tuned the engine to.
 */
import { readFile } from "node:fs/promises";
import type { Case } from "./corpus.js";
import type { SchemaValue } from "./score.js";

/** A map from a field's name in the corpus to the name another caller would give it. */
export type NameMap = Record<string, string>;

export async function readNameMap(file: string): Promise<NameMap> {
  const map = JSON.parse(await readFile(file, "utf8")) as unknown;
  if (typeof map !== "object" || map === null || Object.values(map).some((name) => typeof name !== "string"))
    throw new Error(`${file}: expected an object of field name → field name`);
  return map as NameMap;
}

export function paraphraseCases(cases: Case[], names: NameMap): Case[] {
  return cases.map((item) => ({
    ...item,
    schema: renamed(item.schema, names) as Case["schema"],
    expected: renamed(item.expected, names) as Case["expected"],
  }));
}

/** The corpus's name of a renamed field (scoring rules that name fields, such as complete labels, use it). */
export function originalName(names: NameMap, field: string): string {
  return Object.keys(names).find((key) => names[key] === field) ?? field;
}

/** A schema or a value with the keys of its objects renamed, at every depth; `$any` alternatives keep their key. */
function renamed(value: unknown, names: NameMap): SchemaValue {
  if (Array.isArray(value)) return value.map((item) => renamed(item, names));
  if (typeof value !== "object" || value === null) return value as SchemaValue;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [Object.hasOwn(names, key) ? names[key]! : key, renamed(inner, names)]),
  );
}

/** The benchmarks' result files (bench/results/*.json) as the docs' figures read them. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/** Every result file's JSON by its name without `.json` (`quality`, `lists-llm`, …). */
export type Results = Readonly<Record<string, unknown>>;

export async function loadResults(dir: string): Promise<Results> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".json"));
  const entries = await Promise.all(
    names.map(async (name) => [
      name.slice(0, -".json".length),
      JSON.parse(await readFile(path.join(dir, name), "utf8")),
    ]),
  );
  return Object.fromEntries(entries);
}

/** The value at `file.key.key…` (keys may hold spaces, never dots); a missing one names the path it lacks. */
export function at(results: Results, dotted: string): unknown {
  let value: unknown = results;
  for (const key of dotted.split(".")) {
    if (value === null || typeof value !== "object" || !(key in value))
      throw new Error(`bench/results lacks ${dotted} (no "${key}")`);
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function num(results: Results, dotted: string): number {
  const value = at(results, dotted);
  if (typeof value !== "number") throw new Error(`bench/results ${dotted} is not a number`);
  return value;
}

export function list<T>(results: Results, dotted: string): T[] {
  const value = at(results, dotted);
  if (!Array.isArray(value)) throw new Error(`bench/results ${dotted} is not a list`);
  return value as T[];
}

/** `0.963`: scores and ratios of one. */
export const f3 = (x: number): string => x.toFixed(3);
/** `1.2`, `35.0`: times in ms and the like. */
export const f1 = (x: number): string => x.toFixed(1);
/** `76.9%` of a share of one. */
export const pct = (share: number, digits = 1): string => `${(share * 100).toFixed(digits)}%`;
/** `2,232`: counts with thousands grouped. */
export const count = (x: number): string => Math.round(x).toLocaleString("en-US");
/** `0.963 / 0.829 / 0.891` of a score's precision, recall and F1. */
export const prf = (score: { precision: number; recall: number; f1: number }): string =>
  `${f3(score.precision)} / ${f3(score.recall)} / ${f3(score.f1)}`;

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

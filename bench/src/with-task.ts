/**
 * The with-task run of `npm run bench:quality -- --task` (issue 38): every case is asked with a task description
 * that asks for nothing the page states, as callers add them (a general instruction, a currency, a date format, a
 * style), each case one of them in turn. A task may ask a model to produce a field; these ask none, so every value the
 * page states must stand: the target is F1 with a task at least TARGET times the F1 without (quality.json).
 */
import { existsSync, readFileSync } from "node:fs";
import { fmt } from "./format.js";

const GENERIC_TASKS = [
  "Extract the fields accurately.",
  "Prices in US dollars.",
  "Return dates as ISO 8601.",
  "Be concise; use null when unsure.",
];
const TARGET = 0.98;

/** The task description the case at `index` is asked with. */
export function taskFor(index: number): string {
  return GENERIC_TASKS[index % GENERIC_TASKS.length]!;
}

/** Prints the with-task F1 beside the run without a task (`withoutFile`, when there is one) and whether it holds. */
export function printAgainstWithout(f1: number, withoutFile: string): void {
  if (!existsSync(withoutFile)) {
    console.log(`\nWith a task: F1 ${fmt(f1)} (no run without a task at ${withoutFile} to compare)`);
    return;
  }
  const without = (JSON.parse(readFileSync(withoutFile, "utf8")) as { overall: { f1: number } }).overall.f1;
  const ratio = without > 0 ? f1 / without : 0;
  console.log(
    `\nWith a task: F1 ${fmt(f1)} against ${fmt(without)} without, ${fmt(ratio)}× (target ≥ ${TARGET}: ${ratio >= TARGET ? "met" : "NOT met"})`,
  );
}

/**
 * The with-task run of `npm run bench:quality` (issue 38): every case is asked with a task description
 * that asks for nothing the page states, as callers add them (a general instruction, a currency, a date format, a
 * style), each case one of them in turn. A task may ask a model to produce a field; these ask none, so every value the
 * page states must stand: the aim is F1 with a task at least 0.98 times the F1 without.
 */

const GENERIC_TASKS = [
  "Extract the fields accurately.",
  "Prices in US dollars.",
  "Return dates as ISO 8601.",
  "Be concise; use null when unsure.",
];

/** The task description the case at `index` is asked with. */
export function taskFor(index: number): string {
  return GENERIC_TASKS[index % GENERIC_TASKS.length]!;
}

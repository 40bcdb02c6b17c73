/**
 * What each field status is worth (issue 38): per corpus, the labelled
 * fields by the status Winnow gave them and whether the answer was right.
 * A status means what it says when `found` values are right, right values
 * say `found`, wrong values do not, and `absent` nulls are truly absent
 * (measurable only where a corpus's labels are complete: elsewhere a null
 * label is "not labelled", not "not on the page").
 */
import { pct } from "./format.js";
import { labelsComplete, matches, type SchemaValue } from "./score.js";

/** How one labelled field came out: a value right or wrong, a null where the page states one, a true null. */
type Verdict = "right" | "wrong" | "missed" | "trulyAbsent";

export interface StatusRow {
  /** Fields answered with this status, by verdict. */
  right: number;
  wrong: number;
  missed: number;
  trulyAbsent: number;
  /** Of `missed`, those of fields whose labels are complete: the nulls an `absent` can be judged by. */
  missedJudged: number;
}

export interface StatusFigures {
  /** Right `found` values over all `found` values. */
  foundPrecision: number;
  /** Right values that say `found`, over all right values. */
  rightFound: number;
  /** Wrong values that do not say `found`, over all wrong values. */
  wrongNotFound: number;
  /** The same three, `derived` (a value the page states, converted as the field's name asks) counted with `found`. */
  stated: { precision: number; right: number; wrongOut: number };
  /** `absent` nulls the page really lacks, over all `absent` nulls of fields whose labels are complete (null: none). */
  absentTrue: number | null;
}

export interface StatusTable {
  rows: Record<string, StatusRow>;
  figures: StatusFigures;
}

export interface StatusCase {
  corpus: string;
  schema: Record<string, SchemaValue>;
  expected: Record<string, unknown>;
  data: Record<string, unknown> | undefined;
  /** Each top-level field's status by its JSON pointer (`/price`). */
  fieldStatus: ReadonlyMap<string, string>;
}

/** The status table of each corpus, and of all of them together ("overall"). */
export function statusTables(cases: StatusCase[]): Map<string, StatusTable> {
  const byCorpus = new Map<string, Map<string, StatusRow>>();
  const overall = new Map<string, StatusRow>();
  for (const item of cases) {
    for (const [field, schema] of Object.entries(item.schema)) {
      const verdict = verdictOf(field, schema, item, labelsComplete(item.corpus, field));
      if (!verdict) continue;
      const status = item.fieldStatus.get(`/${field.replace(/~/g, "~0").replace(/\//g, "~1")}`) ?? "none";
      for (const rows of [overall, rowsOf(byCorpus, item.corpus)]) {
        const row = rows.get(status) ?? { right: 0, wrong: 0, missed: 0, trulyAbsent: 0, missedJudged: 0 };
        row[verdict] += 1;
        if (verdict === "missed" && labelsComplete(item.corpus, field)) row.missedJudged += 1;
        rows.set(status, row);
      }
    }
  }
  return new Map(
    [...[...byCorpus].sort(([a], [b]) => a.localeCompare(b)), ["overall", overall] as const].map(([corpus, rows]) => [
      corpus,
      { rows: Object.fromEntries(rows), figures: figuresOf(rows) },
    ]),
  );
}

function rowsOf(byCorpus: Map<string, Map<string, StatusRow>>, corpus: string): Map<string, StatusRow> {
  let rows = byCorpus.get(corpus);
  if (!rows) {
    rows = new Map();
    byCorpus.set(corpus, rows);
  }
  return rows;
}

function verdictOf(field: string, schema: SchemaValue, item: StatusCase, complete: boolean): Verdict | undefined {
  const expected = item.expected[field] ?? null;
  const predicted = item.data?.[field] ?? null;
  const empty = isEmpty(predicted);
  // A null label is scored only where labels are complete: there it says the page has no such value.
  if (expected === null) return complete ? (empty ? "trulyAbsent" : "wrong") : undefined;
  if (empty) return "missed";
  return matches(field, schema, expected, predicted) ? "right" : "wrong";
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (Array.isArray(value) && value.length === 0);
}

function figuresOf(rows: Map<string, StatusRow>): StatusFigures {
  const all = [...rows.values()];
  const none = { right: 0, wrong: 0, missed: 0, trulyAbsent: 0, missedJudged: 0 };
  const found = rows.get("found") ?? none;
  const derived = rows.get("derived") ?? none;
  const absent = rows.get("absent");
  const right = all.reduce((sum, row) => sum + row.right, 0);
  const wrong = all.reduce((sum, row) => sum + row.wrong, 0);
  const ratio = (a: number, b: number) => (b > 0 ? Math.round((1000 * a) / b) / 1000 : 0);
  // Only fields with complete labels have true nulls; elsewhere an absent null cannot be judged.
  const judged = absent ? absent.trulyAbsent + absent.missedJudged : 0;
  return {
    foundPrecision: ratio(found.right, found.right + found.wrong),
    rightFound: ratio(found.right, right),
    wrongNotFound: ratio(wrong - found.wrong, wrong),
    stated: {
      precision: ratio(found.right + derived.right, found.right + found.wrong + derived.right + derived.wrong),
      right: ratio(found.right + derived.right, right),
      wrongOut: ratio(wrong - found.wrong - derived.wrong, wrong),
    },
    absentTrue: judged > 0 ? ratio(absent!.trulyAbsent, judged) : null,
  };
}

/** Prints each corpus's status × verdict table and its figures. */
export function printStatusTables(tables: Map<string, StatusTable>): void {
  console.log("\nField status against the labels (right / wrong: values; missed: null where the page states one)");
  for (const [corpus, { rows, figures }] of tables) {
    console.log(`\n${corpus}`);
    console.log(
      `  ${"status".padEnd(12)} ${["fields", "right", "wrong", "missed", "true null"].map((h) => h.padStart(9)).join(" ")}`,
    );
    for (const [status, row] of Object.entries(rows).sort(([a], [b]) => a.localeCompare(b))) {
      const total = row.right + row.wrong + row.missed + row.trulyAbsent;
      console.log(
        `  ${status.padEnd(12)} ${[total, row.right, row.wrong, row.missed, row.trulyAbsent].map((n) => String(n).padStart(9)).join(" ")}`,
      );
    }
    const absent = figures.absentTrue === null ? "(no complete labels)" : figures.absentTrue.toFixed(3);
    console.log(
      `  found precision ${figures.foundPrecision.toFixed(3)}; right values found ${pct(figures.rightFound * 1000, 1000)}; ` +
        `wrong values not found ${pct(figures.wrongNotFound * 1000, 1000)}; absent nulls truly absent ${absent}`,
    );
    console.log(
      `  found or derived: precision ${figures.stated.precision.toFixed(3)}; right values ${pct(figures.stated.right * 1000, 1000)}; ` +
        `wrong values neither ${pct(figures.stated.wrongOut * 1000, 1000)}`,
    );
  }
}

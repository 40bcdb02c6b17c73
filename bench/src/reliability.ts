/**
 * The builtin engine's reliability per evidence source and kind of value,
 * measured as unseen sites will see it. A rule written for a site is right
 * on that site's pages by construction, and pages of one site fail
 * together, so a site is the unit of evidence: a source's precision on a
 * site is one observation, and its reliability is the Wilson score lower
 * bound (95%, one-sided) of the mean of those observations over the sites
 * where it answered. Wilson, not the plain mean: it stays below 1 for a
 * source right on a handful of sites, and has a closed form that behaves
 * at a precision of 1, where the normal approximation claims certainty.
 *
 * Leave-one-site-out checks that bound: for each site, the source's
 * reliability measured on the other sites' pages only is what its values
 * there would have stated, and whether they stand without the model
 * (services/extractor/src/flow/prefill-calibration.ts), set against what
 * the scorer found on that site.
 */
import { writeFile } from "node:fs/promises";
import { PROVEN_RELIABILITY, reliabilityOf, SURE_FROM, type ValueKind } from "@winnow/extractor";
import type { Evidence } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { fmt } from "./format.js";

export interface Judged {
  site: string;
  corpus: string;
  /** Each top-level field's kind of value. */
  kinds: Record<string, ValueKind>;
  evidence: Map<string, Evidence>;
  /** The scorer's outcome per labelled field. */
  outcomes: Record<string, string>;
}

/** One top-level answer: its evidence's source and kind ("json-ld text"), and whether the scorer found it right. */
export interface Answer {
  site: string;
  corpus: string;
  cell: string;
  /** Whether the engine was sure of every value under the field (its score at or above SURE_FROM). */
  sure: boolean;
  right: boolean;
}

/** One-sided 95%. */
const Z = 1.645;

/** Wilson score lower bound of a proportion `p` observed over `n` trials (0 with none). */
export function wilsonLowerBound(p: number, n: number, z = Z): number {
  if (n === 0) return 0;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return Math.max(0, (centre - margin) / (1 + z2 / n));
}

export interface SiteFigures {
  sites: number;
  /** The mean over sites of each site's precision. */
  precision: number;
  /** Its lower bound: the reliability. */
  reliability: number;
}

/** Reliability with sites as the observations. */
export function acrossSites(answers: Pick<Answer, "site" | "right">[]): SiteFigures {
  const bySite = new Map<string, { n: number; right: number }>();
  for (const { site, right } of answers) {
    const counts = bySite.get(site) ?? { n: 0, right: 0 };
    counts.n += 1;
    if (right) counts.right += 1;
    bySite.set(site, counts);
  }
  const precisions = [...bySite.values()].map(({ n, right }) => right / n);
  const precision = precisions.reduce((a, b) => a + b, 0) / Math.max(1, precisions.length);
  return { sites: precisions.length, precision, reliability: wilsonLowerBound(precision, precisions.length) };
}

/** Per site: the reliability measured on the other sites' answers only. */
export function leaveOneSiteOut(answers: Pick<Answer, "site" | "right">[]): Map<string, number> {
  const sites = new Set(answers.map((a) => a.site));
  return new Map([...sites].map((site) => [site, acrossSites(answers.filter((a) => a.site !== site)).reliability]));
}

/** One answer per top-level field that has evidence; the source of its first value. */
function answersOf(cases: Judged[]): Answer[] {
  return cases.flatMap(({ site, corpus, kinds, evidence, outcomes }) =>
    Object.entries(outcomes).flatMap(([field, outcome]) => {
      if (outcome === "fn") return [];
      const under = [...evidence]
        .filter(([pointer]) => pointer === `/${field}` || pointer.startsWith(`/${field}/`))
        .map(([, e]) => e);
      const kind = kinds[field];
      // Values inside a list's records are measured on the listing corpus (bench:lists), record by record.
      if (under.length === 0 || !kind || kind === "record") return [];
      const source = under[0]!.source;
      // The extractor states min(score, reliability): a score is read as sure where the stated confidence is at
      // SURE_FROM, or at the reliability when that is lower (the score is then at least that).
      const sureFrom = Math.min(SURE_FROM, reliabilityOf(source, kind));
      const sure = under.every((e) => e.confidence >= sureFrom);
      return [{ site, corpus, cell: `${source} ${kind}`, sure, right: outcome === "tp" }];
    }),
  );
}

interface CellRow extends SiteFigures {
  cell: string;
  answers: number;
  right: number;
  /** Leave-one-site-out: the mean confidence each answer's site would have been stated by the others. */
  heldOutStated: number;
  /** Answers that would have stood without the model with their own site left out, and how many were right. */
  heldOutProven: number;
  heldOutProvenRight: number;
}

interface ProvenFigures {
  answers: number;
  right: number;
}

export interface Reliability {
  /** Answers that stand without the model when it is at least this. */
  provenFrom: number;
  cells: CellRow[];
  /** Per corpus: all answers, those that stand when calibrated on every site (the dev pages themselves), and those
   * that stand when calibrated on the other sites only (what an unseen site sees). */
  corpora: Record<string, { all: ProvenFigures; inSample: ProvenFigures; crossSite: ProvenFigures }>;
}

export function reliability(cases: Judged[]): Reliability {
  const answers = answersOf(cases);
  const cells = [...new Set(answers.map((a) => a.cell))].sort();
  const heldOut = new Map(cells.map((cell) => [cell, leaveOneSiteOut(answers.filter((a) => a.cell === cell))]));
  const full = new Map(cells.map((cell) => [cell, acrossSites(answers.filter((a) => a.cell === cell))]));
  const provenInSample = (a: Answer) => a.sure && full.get(a.cell)!.reliability >= PROVEN_RELIABILITY;
  const provenCrossSite = (a: Answer) => a.sure && heldOut.get(a.cell)!.get(a.site)! >= PROVEN_RELIABILITY;
  const rows = cells.map((cell): CellRow => {
    const mine = answers.filter((a) => a.cell === cell);
    const proven = mine.filter(provenCrossSite);
    return {
      cell,
      answers: mine.length,
      right: mine.filter((a) => a.right).length,
      ...full.get(cell)!,
      heldOutStated: mine.reduce((sum, a) => sum + heldOut.get(cell)!.get(a.site)!, 0) / mine.length,
      heldOutProven: proven.length,
      heldOutProvenRight: proven.filter((a) => a.right).length,
    };
  });
  const figures = (list: Answer[]): ProvenFigures => ({
    answers: list.length,
    right: list.filter((a) => a.right).length,
  });
  const corpora = [...new Set(answers.map((a) => a.corpus))].sort().map((corpus) => {
    const mine = answers.filter((a) => a.corpus === corpus);
    return [
      corpus,
      {
        all: figures(mine),
        inSample: figures(mine.filter(provenInSample)),
        crossSite: figures(mine.filter(provenCrossSite)),
      },
    ] as const;
  });
  return { provenFrom: PROVEN_RELIABILITY, cells: rows, corpora: Object.fromEntries(corpora) };
}

const ratio = (right: number, answers: number) => (answers === 0 ? "     -" : fmt(right / answers));

export function printReliability({ provenFrom, cells, corpora }: Reliability): void {
  console.log(
    `\nBuiltin engine reliability, leave one site out (per evidence source and kind of value; top-level answers)`,
  );
  console.log(
    `${"source kind".padEnd(20)} ${"sites".padStart(5)} ${"answers".padStart(7)} ${"prec".padStart(6)} ${"site-mean".padStart(9)} ${"stated".padStart(6)} ${"held-out stated".padStart(15)} ${"proven held-out (right)".padStart(23)}`,
  );
  for (const row of cells) {
    console.log(
      `${row.cell.padEnd(20)} ${String(row.sites).padStart(5)} ${String(row.answers).padStart(7)} ${ratio(row.right, row.answers)} ${fmt(row.precision).padStart(9)} ${fmt(row.reliability)} ${fmt(row.heldOutStated).padStart(15)} ${`${row.heldOutProven} (${row.heldOutProvenRight})`.padStart(23)}`,
    );
  }
  console.log(
    `stated: the Wilson lower bound (95%) of the site-mean precision, what the extractor states; held-out: each site's answers stated by the other sites; proven: reliability >= ${provenFrom} and the engine sure`,
  );
  console.log(`\nAnswers that stand without the model, per corpus: precision (answers)`);
  console.log(
    `${"".padEnd(24)} ${"all answers".padStart(16)} ${"calibrated on dev".padStart(18)} ${"cross-site".padStart(16)}`,
  );
  for (const [corpus, { all, inSample, crossSite }] of Object.entries(corpora)) {
    const cell = ({ answers, right }: ProvenFigures) => `${ratio(right, answers)} (${answers})`;
    console.log(
      `${corpus.padEnd(24)} ${cell(all).padStart(16)} ${cell(inSample).padStart(18)} ${cell(crossSite).padStart(16)}`,
    );
  }
}

/** How a generated reliability table is named: its constant, what it holds, the command that writes it. */
export interface TableName {
  constant: string;
  holds: string;
  command: string;
}

export const SOURCE_TABLE: TableName = {
  constant: "SOURCE_RELIABILITY",
  holds: 'Per "<evidence source> <kind of value>": the cross-site reliability (prefill-calibration.ts).',
  command: "npm run bench:quality -- --write-calibration",
};

/** Writes the reliabilities the extractor states (services/extractor/src/flow/source-reliability.ts and its kin). */
export async function writeReliabilityTable(
  file: string,
  cells: (SiteFigures & { cell: string; answers: number })[],
  corpus: string,
  name: TableName = SOURCE_TABLE,
): Promise<void> {
  const rows = cells.map(
    (row) =>
      `  ${JSON.stringify(row.cell)}: ${Math.floor(row.reliability * 1000) / 1000}, // ${row.sites} sites, ${row.answers} answers, site-mean precision ${fmt(row.precision).trim()}`,
  );
  await writeFile(
    file,
    `// Generated by \`${name.command}\` (bench/src/reliability.ts) on ${corpus}; do not edit.
/** ${name.holds} */
export const ${name.constant}: Readonly<Record<string, number>> = {
${rows.join("\n")}
};
`,
  );
}

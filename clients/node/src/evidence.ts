/**
 * Where a value was read: structured data, a meta tag, the page's heading, byline, labels or layout, a learned
 * template, or the AI model.
 */
export type EvidenceSource =
  | "json-ld"
  | "microdata"
  | "meta"
  | "heading"
  | "byline"
  | "label"
  | "layout"
  | "template"
  | "model";

/** Why a value is what it is. */
export interface Evidence {
  source: EvidenceSource;
  /** The page text the value was read from (at most 300 characters); absent for a value the model derived. */
  text?: string;
  /** A CSS selector of the element it was read from, when it came from the page's markup. */
  selector?: string;
  /** 0 to 1. */
  confidence: number;
  /** Whether the value is on the page. */
  grounded: boolean;
  /** How far the value can be trusted. */
  status: FieldStatus;
  /**
   * Only where the builtin engine and the model read different values (status `conflict`), at the field's pointer: the
   * value not kept.
   */
  alternative?: AlternativeValue;
}

/** A value one engine read where another's was kept. */
export interface AlternativeValue {
  value: unknown;
  source: EvidenceSource;
  /** The page text it was read from, when there is one. */
  text?: string;
  grounded: boolean;
}

/**
 * How far a value can be trusted: each status with what it means, in one line (the API docs' *Field status* says
 * more).
 */
export const STATUS_MEANINGS = {
  found: "The page shows this value where it was read, from a source reliable across sites.",
  derived: "Converted from the page as the field's name asks, or produced by the model for the task.",
  unverified: "Not confirmed: the page does not show it where it was read, or its source is less reliable.",
  absent: "null: the page does not state it (it names nothing of this field).",
  "not-found": "null: no value was read, but the page may state one (a model may find it).",
  conflict: "Readings differ (page parts, engines, or a listing and a record's page); evidence has the other.",
  truncated: "Part of the page that may hold it was not read, or a list has fewer records than the page.",
  "needs-model": "null: the task asks for it and only an AI model produces it; none is configured.",
} as const satisfies Record<string, string>;

/** A value's status (see `STATUS_MEANINGS`). */
export type FieldStatus = keyof typeof STATUS_MEANINGS;

/** What a status means, in one line; a newer server's status this client does not know is said to be one. */
export function describeStatus(status: string): string {
  return Object.hasOwn(STATUS_MEANINGS, status)
    ? STATUS_MEANINGS[status as FieldStatus]
    : `A status this client does not know (${status}): see the API docs.`;
}

/**
 * Something the extractor (or the renderer) noticed: `content-truncated`, `ungrounded`, `merge-conflict`,
 * `needs-model`, `render-incomplete`, ...
 */
export interface ScrapeWarning {
  code: string;
  /** In the evidence envelope only (the Winnow-Warnings header carries the codes). */
  message?: string;
  /** The JSON pointer of the value concerned, when there is one. */
  path?: string;
}

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
 * How far a value can be trusted: `found` (read from the page, from a proven source or found there by grounding),
 * `derived` (produced for the task description, or by a conversion its name asks), `absent` (null: not on the page),
 * `unverified` (nothing proven confirms it), `conflict` (parts of the page, or the builtin engine and the model,
 * disagree: `alternative` holds the value not kept), `truncated` (the part of the page
 * that may hold it was not read), `needs-model` (null: the task description asks for it and no model answered).
 */
export type FieldStatus = "found" | "derived" | "absent" | "unverified" | "conflict" | "truncated" | "needs-model";

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

import type { Schema, ScrapeResult } from "./schema.js";

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
}

/**
 * The answer with `options.evidence`: the data unchanged, and each value's evidence by JSON pointer ("/price",
 * "/ingredients/0").
 */
export interface ScrapeWithEvidence<S extends Schema> {
  data: ScrapeResult<S>;
  evidence: Record<string, Evidence>;
}

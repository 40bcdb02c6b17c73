/**
 * Evidence: why a value is what it is. Each value of an answer (a field, or
 * an item of an array) may have one, keyed by its JSON pointer (RFC 6901):
 * where it was read (the source), the page text it was read from, the
 * element it came from as a CSS selector, how sure the engine is, and
 * whether the value is on the page. Engines note an Origin where they read a
 * value; the EvidenceTrail turns it into Evidence at the value's pointer.
 */
import type { Evidence as EvidenceMessage, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { Element } from "domhandler";
import { collapsed } from "../page/elements.js";
import { selectorOf } from "../page/selector.js";
import type { PageStatements } from "../page/stated.js";

type EvidenceSource =
  | "json-ld"
  | "microdata"
  | "meta"
  | "heading"
  | "byline"
  | "label"
  | "layout"
  | "template"
  | "model";

/** Where an engine read a value, as it knows it when it reads it. */
export interface Origin {
  source: EvidenceSource;
  /** The page text the value was read from; for structured data, the value as the data states it. */
  text?: string;
  /** The element it was read from, when it came from the page's markup. */
  element?: Element;
  /** For a list read from several elements, each item's element in order. */
  items?: Element[];
}

interface Evidence {
  source: EvidenceSource;
  /** At most MAX_TEXT characters; absent where the value was not read from the page (a model's derived value). */
  text?: string;
  /** A CSS selector of the element, when the value came from the markup. */
  selector?: string;
  /** 0 to 1. */
  confidence: number;
  /** Whether the value is on the page: stated where a reader sees it (a model's value: in the text it read). */
  grounded: boolean;
  /** The element it was read from, kept while the answer is built to check the value against (never sent). */
  element?: Element;
}

/** Evidence by JSON pointer ("/price", "/ingredients/0", "/author/name"). */
export type EvidenceMap = Map<string, Evidence>;

export const MAX_TEXT = 300;

/** Collects evidence while an engine fills a schema. */
export class EvidenceTrail {
  readonly evidence: EvidenceMap = new Map();
  /** What the engine noticed while reading that the caller may act on (a near name that would answer). */
  readonly warnings: Warning[] = [];

  /** selectors: whether to name each value's element; most of the trail's cost, and needed only for evidence returned. */
  constructor(private readonly options = { selectors: true }) {}

  note(pointer: string, origin: Origin | undefined, confidence: number): void {
    if (!origin) return;
    const text = origin.text === undefined ? undefined : clipped(origin.text);
    const { element } = origin;
    // Written field by field, absent where unknown, rather than spread from an object per optional field: a list's
    // trail notes a value per record and field.
    const evidence: Evidence = {
      source: origin.source,
      confidence: Math.round(confidence * 1000) / 1000,
      // Until checked against the page (withStatedValues).
      grounded: false,
    };
    if (text) evidence.text = text;
    if (element && this.options.selectors) evidence.selector = selectorOf(element);
    if (element) evidence.element = element;
    this.evidence.set(pointer, evidence);
  }
}

/**
 * The evidence with each value checked against what the page shows (page/stated.ts): grounded where the page states
 * the value as the answer holds it. A boolean is stated by the marker it was read from (an availability text, a
 * schema.org availability, a checked control), which the engine's evidence holds.
 */
export function withStatedValues(evidence: EvidenceMap, data: unknown, page: PageStatements): EvidenceMap {
  // One pass into a new map: a list's evidence holds a value per record and field.
  const stated: EvidenceMap = new Map();
  for (const [pointer, e] of evidence) {
    const value = valueAt(data, pointer);
    const grounded =
      typeof value === "boolean"
        ? e.text !== undefined || e.element !== undefined
        : page.states(value, e.element, /\/\d+$/.test(pointer));
    stated.set(pointer, { ...e, grounded });
  }
  return stated;
}

/** A pointer one level down: RFC 6901 escapes "~" and "/" in a key. */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * Only the evidence of values the answer holds: what shaping turned to null
 * or left out has none, and an object or array holds no evidence of its
 * own unless an engine gave it one.
 */
export function presentIn(evidence: EvidenceMap, data: unknown): EvidenceMap {
  const present: EvidenceMap = new Map();
  for (const [pointer, e] of evidence) if (isPresent(valueAt(data, pointer))) present.set(pointer, e);
  return present;
}

/** Only the evidence of the answer's top-level fields named. */
export function underFields(evidence: EvidenceMap, fields: string[]): EvidenceMap {
  const under = underOneOf(fields);
  const found: EvidenceMap = new Map();
  for (const [pointer, e] of evidence) if (under(pointer)) found.set(pointer, e);
  return found;
}

/** Whether a pointer is at or inside one of the top-level fields named. */
export function isUnder(pointer: string, fields: string[]): boolean {
  return underOneOf(fields)(pointer);
}

/** The test of isUnder for these fields, their pointers written once: a list's evidence asks it of every value. */
export function underOneOf(fields: string[]): (pointer: string) => boolean {
  const roots = fields.map((name) => childPointer("", name));
  const prefixes = roots.map((root) => `${root}/`);
  return (pointer) => roots.some((root, i) => pointer === root || pointer.startsWith(prefixes[i]!));
}

/** As ExtractResponse carries it. */
export function evidenceMessages(evidence: EvidenceMap): EvidenceMessage[] {
  return [...evidence].map(([pointer, { source, text, selector, confidence, grounded }]) => ({
    pointer,
    source,
    text: text ?? "",
    selector: selector ?? "",
    confidence,
    grounded,
    // Set once the whole answer is known (flow/status.ts).
    status: "",
  }));
}

/** A pointer's keys, unescaped (RFC 6901). */
export function pointerKeys(pointer: string): string[] {
  const keys = pointer.split("/").slice(1);
  // Most pointers escape nothing: a list's evidence reads a pointer per value, several times.
  return pointer.includes("~") ? keys.map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~")) : keys;
}

function valueAt(data: unknown, pointer: string): unknown {
  if (pointer.includes("~") || (pointer !== "" && !pointer.startsWith("/")))
    return pointerKeys(pointer).reduce(childValue, data);
  // Key by key along the pointer, without splitting it: each value of a list's evidence is looked up several times.
  let value = data;
  for (let at = 0; at < pointer.length && value !== undefined; ) {
    const end = pointer.indexOf("/", at + 1);
    const next = end < 0 ? pointer.length : end;
    value = childValue(value, pointer.slice(at + 1, next));
    at = next;
  }
  return value;
}

function childValue(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function isPresent(value: unknown): boolean {
  return value !== null && value !== undefined;
}

/** Whitespace collapsed, cut at MAX_TEXT characters. */
function clipped(text: string): string {
  return collapsed(text).slice(0, MAX_TEXT);
}

/**
 * Field names matched to the page's labels by meaning: both sides split
 * into singular lower-case words; the same words, or a known synonym, is a
 * confident match; a label that says a little more than the field is a
 * weaker one. Confidence is what the engine weighs, never position alone.
 */
import type { Origin } from "../../schema/evidence.js";
import type { NameHints } from "../../schema/field-names.js";
import { LABEL_SYNONYMS } from "./concepts.js";
import type { Labelled } from "./labels.js";

export interface Scored<T> {
  value: T;
  /** 0 to 1: how sure the engine is that this is the field's value. */
  confidence: number;
  /** Weighed against every other source already: a doubt here is the answer, not a reason to ask them again. */
  settled?: boolean;
  /** Where it was read: its evidence. */
  origin?: Origin;
}

/** Below this a value is left null (and, in hybrid mode, left to the model). */
export const MIN_CONFIDENCE = 0.6;

export const STOP_WORDS = new Set(["the", "a", "an", "of", "for", "and", "to", "in", "on", "is"]);

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map(singular);
}

/**
 * The best label for a field: earliest in the page among the most confident; hidden labels only when no visible one
 * matches.
 */
export function matchLabel(hints: NameHints, labels: Labelled[]): Scored<Labelled> | undefined {
  return (
    bestLabel(
      hints,
      labels.filter((label) => !label.hidden),
    ) ??
    bestLabel(
      hints,
      labels.filter((label) => label.hidden),
    )
  );
}

/** Words of a field's name that say what form its value takes, not what it is about: labels rarely repeat them. */
const FORM_WORDS = new Set(["name", "names", "list", "title", "text", "value", "values", "type", "kind"]);
/** How sure a label is that names the field in fewer words than its name. */
const SHORTER_LABEL = 0.65;

/**
 * The best label for a field that names it in fewer words than the field's
 * name: "Director" for `director_name` (its form words left out), else
 * "Height" for `player_height` (the name's last word: English puts a
 * compound's head last). Less sure than a label that says the whole name;
 * `hints` are the words the label says, which its value is read for.
 */
export function matchShorterLabel(
  hints: NameHints,
  labels: Labelled[],
): { match: Scored<Labelled>; hints: NameHints } | undefined {
  const content = hints.subject.filter((word) => !FORM_WORDS.has(word));
  for (const subject of [content, content.slice(-1)]) {
    if (subject.length === 0 || subject.length >= hints.subject.length) continue;
    const shorter = { ...hints, subject };
    const match = matchLabel(shorter, labels);
    if (match) return { match: { ...match, confidence: Math.min(match.confidence, SHORTER_LABEL) }, hints: shorter };
  }
  return undefined;
}

/**
 * The label says the field's name or a synonym as written, not a form of it:
 * "Brands" over a menu heads a list of brands, not this product's brand.
 */
export function labelsExactly(hints: NameHints, label: string): boolean {
  const key = hints.subject.join(" ");
  const written = label
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  return written === key || (LABEL_SYNONYMS.get(key) ?? []).includes(written);
}

/**
 * A value that carries its own label, "See all of the brand: Panasonic",
 * where the label mentions the field's name or a one-word synonym: the text
 * after it. Any other value is returned as it is.
 */
export function withoutOwnLabel(value: string, hints: NameHints): string {
  const match = /^([^:：]{1,60})[:：]\s*(\S.*)$/s.exec(value);
  if (!match) return value;
  const key = hints.subject.map(singular).join(" ");
  const names = [key, ...(LABEL_SYNONYMS.get(key) ?? [])].filter((name) => !name.includes(" "));
  return words(match[1]!).some((word) => names.includes(word)) ? match[2]!.trim() : value;
}

function bestLabel(hints: NameHints, labels: Labelled[]): Scored<Labelled> | undefined {
  const subject = hints.subject.map(singular);
  if (subject.length === 0) return undefined;
  const key = subject.join(" ");
  const synonyms = (LABEL_SYNONYMS.get(key) ?? []).map((s) => words(s).join(" "));
  let best: Scored<Labelled> | undefined;
  let conflicted = false;
  for (const label of labels) {
    const labelWords = words(label.label);
    const phrase = labelWords.join(" ");
    let confidence = 0;
    if (phrase === key || sameSet(labelWords, subject)) confidence = 0.8;
    else if (synonyms.includes(phrase)) confidence = 0.75;
    else if (subject.every((w) => labelWords.includes(w)) && labelWords.length - subject.length === 1)
      confidence = 0.65;
    else if (
      subject.length > 1 &&
      subject.every((w) => labelWords.includes(w)) &&
      labelWords.length - subject.length === 2
    )
      confidence = 0.6;
    if (confidence === 0) continue;
    if (confidence > (best?.confidence ?? 0)) {
      best = { value: label, confidence };
      conflicted = false;
    }
    // The same label with another value elsewhere (a second offer, another edition): less sure which one is meant,
    // unless the name asks for the first of them.
    else if (best && !hints.first && confidence === best.confidence && !related(best.value.value, label.value))
      conflicted = true;
  }
  return best && conflicted ? { value: best.value, confidence: best.confidence * 0.7 } : best;
}

/** Values that say the same thing, one perhaps at more length ("Knopf" and "Knopf; First Edition"). */
function related(a: string, b: string): boolean {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x.includes(y) || y.includes(x);
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((word) => b.includes(word));
}

export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")
    ? word.slice(0, -1)
    : word;
}

/**
 * Where a page shows a value, on its snapshot: the innermost elements whose
 * text shows it (with the text around it, or as their own text), the
 * attributes that hold it, the container of a list's items, or the page's
 * records that show a list of objects; each with how its value is read there
 * and what that reads.
 */
import type { Field } from "@winnow/platform";
import type { Element } from "domhandler";
import { textOf } from "../page/elements.js";
import { labelKey } from "../page/page-index.js";
import { stepFinds } from "./element-locators.js";
import type { Located, Locator } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { MAX_AROUND, readText, spanOf, valuePattern } from "./places.js";
import { readAs, sameValue } from "./values.js";

/** Elements tried per value. */
const MAX_TARGETS = 4;
/** Levels climbed from a list's first item to its container. */
const MAX_LEVELS = 4;

type Reading = Pick<Locator, "attr" | "own" | "prefix" | "suffix" | "pattern" | "items" | "fields">;

/** An element that shows the value, how its value is read, and what that reads (undefined: nothing). */
export interface Target {
  element: Element;
  reading: Reading;
  raw: Located["raw"] | undefined;
}

/** The elements that show the field's value, by the field's kind. */
export function valueTargets(snapshot: PageSnapshot, field: Field, value: unknown): Target[] {
  if (field.node.kind === "array" && field.node.items.kind === "object")
    return (snapshot.records.get(field.name) ?? []).map(({ container, reading, raw }) => ({
      element: container,
      reading,
      raw,
    }));
  if (!Array.isArray(value)) return scalarTargets(snapshot, field, value);
  return listTargets(snapshot, field, value as string[]);
}

/** The innermost elements whose text shows the value, with the text around it; then attributes that hold it. */
function scalarTargets(snapshot: PageSnapshot, field: Field, value: unknown): Target[] {
  const targets: Target[] = [];
  const shows = new Map<Element, [number, number]>();
  for (const element of snapshot.elements) {
    const text = snapshot.texts.get(element)!;
    if (text.length > MAX_AROUND + String(value).length + 30) continue;
    const span = spanOf(text, value, field.name);
    if (span) shows.set(element, span);
  }
  for (const [element, [start, end]] of shows) {
    if (targets.length >= MAX_TARGETS) break;
    if (element.children.some((child) => shows.has(child as Element))) continue;
    const text = snapshot.texts.get(element)!;
    // Text around the value that child elements add ("[Paperback]", "(1994)") may differ between pages; the element's
    // own text does not hold it.
    const own = snapshot.ownTexts.get(element)!;
    if (
      (start > 0 || end < text.length) &&
      own.length < text.length &&
      isEqualSpan(spanOf(own, value, field.name), own)
    )
      targets.push({ element, reading: { own: true }, raw: readText(own, {}) });
    const around = { prefix: text.slice(0, start), suffix: text.slice(end) };
    targets.push({ element, reading: around, raw: readText(text, around) });
  }
  const pattern = valuePattern(value);
  if (pattern) targets.push(...patternTargets(snapshot, pattern, value as string));
  if (typeof value !== "string") return targets;
  for (const [element, values] of snapshot.attributes) {
    if (targets.length >= 2 * MAX_TARGETS) break;
    const held = values.find(
      ({ attr, written, raw }) => written === value || ((attr === "href" || attr === "src") && raw === value),
    );
    if (held) targets.push({ element, reading: { attr: held.attr }, raw: held.raw });
  }
  return targets;
}

/**
 * The innermost elements whose text reads the value by its shape (places.ts, valuePattern), where the words around it
 * are too many or vary: "Posted: <date> Post subject: <title>".
 */
function patternTargets(snapshot: PageSnapshot, pattern: string, value: string): Target[] {
  const reads = new Set<Element>();
  for (const element of snapshot.elements) {
    const text = snapshot.texts.get(element)!;
    if (text.length <= MAX_PATTERN_TEXT && sameValue(readText(text, { pattern }), value)) reads.add(element);
  }
  return [...reads]
    .filter((element) => !element.children.some((child) => reads.has(child as Element)))
    .slice(0, MAX_TARGETS)
    .map((element) => ({ element, reading: { pattern }, raw: value }));
}

/** Text an element may hold around a value read by its shape. */
const MAX_PATTERN_TEXT = 300;

function isEqualSpan(span: [number, number] | undefined, text: string): boolean {
  return span !== undefined && span[0] === 0 && span[1] === text.length;
}

/**
 * For a list of texts: an element of the first item, and the container holding exactly the list's items under one
 * step.
 */
function listTargets(snapshot: PageSnapshot, field: Field, value: string[]): Target[] {
  const found: Target[] = [];
  const wanted = readAs(field, value);
  for (const element of snapshot.shownBy.get(labelKey(value[0]!)) ?? []) {
    if (found.length >= MAX_TARGETS) break;
    const step = snapshot.steps.get(element)!.relative;
    let container = element.parent;
    for (let level = 0; level < MAX_LEVELS && container?.type === "tag"; level += 1, container = container.parent) {
      const shown = stepFinds(snapshot, container as Element, step)
        .map((item) => snapshot.texts.get(item) ?? textOf(item))
        .filter((text) => text !== "");
      if (shown.length > value.length) break;
      if (shown.length < value.length) continue;
      const read = readAs(field, shown);
      if (sameValue(read, wanted)) {
        found.push({ element: container as Element, reading: { items: step.css }, raw: shown });
        break;
      }
    }
  }
  return found;
}

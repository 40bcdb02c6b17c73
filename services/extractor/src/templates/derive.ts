/**
 * The second phase of learning, locators from answers: given a field's
 * value on a page (known with confidence) and the page's snapshot
 * (page-snapshot.ts), the elements that show it and the locators that find
 * them again, each with what it reads there. The locators kept are those that
 * read the value back, so they are right here; whether they hold on the
 * template's other pages is what learning counts.
 */
import type { Field } from "@winnow/platform";
import type { Element } from "domhandler";
import { textOf } from "../page/elements.js";
import { isLabelText, labelKey } from "../page/page-index.js";
import { type Located, type Locator, readText } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { MAX_AROUND, type Step, spanOf, stepOf, withoutEmpty, writtenStep } from "./places.js";
import { holds, placeOnPath, stepFinds, stepFindsFromLabel } from "./snapshot-match.js";
import { agrees, readAs, sameValue } from "./values.js";

/** Elements tried per value and locators kept per field and page: enough alternatives for learning to choose from. */
const MAX_TARGETS = 4;
const MAX_LOCATORS = 6;
/** Levels climbed: from a value to its container, from a label to what holds the value. */
const MAX_LEVELS = 4;
const MAX_INDEX = 5;
/** Elements looked at before a value for its label, nearest first. */
const LABEL_WINDOW = 30;
const MAX_ANCHORS = 3;

type ElementLocator = Pick<Locator, "path" | "label" | "up" | "index">;
type Reading = Pick<Locator, "attr" | "own" | "prefix" | "suffix" | "items" | "fields">;

/** A candidate locator, the element it finds on the snapshot's page, and what it reads there (undefined: nothing). */
export interface Candidate {
  locator: Locator;
  element: Element;
  raw: Located["raw"] | undefined;
}

/** The locators that read the value back on this page, the first few of the candidates. */
export function deriveLocators(snapshot: PageSnapshot, field: Field, value: unknown): Locator[] {
  return candidateLocators(snapshot, field, value)
    .filter(({ raw }) => raw !== undefined && agrees(readAs(field, raw), value))
    .slice(0, MAX_LOCATORS)
    .map(({ locator }) => locator);
}

/** Every way to find again the elements that show the value: where each is, and how its value is read. */
export function candidateLocators(snapshot: PageSnapshot, field: Field, value: unknown): Candidate[] {
  const targets =
    field.node.kind === "array" && field.node.items.kind === "object"
      ? (snapshot.records.get(field.name) ?? []).map(({ container, reading, raw }) => ({
          element: container,
          reading,
          raw,
        }))
      : Array.isArray(value)
        ? listTargets(snapshot, field, value as string[])
        : scalarTargets(snapshot, field, value);
  return targets.flatMap(({ element, reading, raw }) =>
    elementLocators(snapshot, element).map((where) => ({
      locator: { ...where, ...withoutEmpty(reading) },
      element,
      raw,
    })),
  );
}

interface Target {
  element: Element;
  reading: Reading;
  raw: Located["raw"] | undefined;
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

function isEqualSpan(span: [number, number] | undefined, text: string): boolean {
  return span !== undefined && span[0] === 0 && span[1] === text.length;
}

/**
 * For a list of texts: an element of the first item, and the container holding exactly the list's items under one
 * step.
 */
function listTargets(snapshot: PageSnapshot, field: Field, value: string[]): Target[] {
  const found: Target[] = [];
  for (const element of snapshot.shownBy.get(labelKey(value[0]!)) ?? []) {
    if (found.length >= MAX_TARGETS) break;
    const step = stepOf(element, true);
    let container = element.parent;
    for (let level = 0; level < MAX_LEVELS && container?.type === "tag"; level += 1, container = container.parent) {
      const shown = stepFinds(snapshot, container as Element, step)
        .map((item) => snapshot.texts.get(item) ?? textOf(item))
        .filter((text) => text !== "");
      if (shown.length > value.length) break;
      if (shown.length === value.length && sameValue(readAs(field, shown), readAs(field, value))) {
        found.push({ element: container as Element, reading: { items: writtenStep(step) }, raw: shown });
        break;
      }
    }
  }
  return found;
}

/** Ways to find the element again, by path and from labels near it, each where it finds the element on this page. */
function elementLocators(snapshot: PageSnapshot, element: Element): ElementLocator[] {
  return [...pathLocators(snapshot, element), ...labelLocators(snapshot, element)];
}

/**
 * CSS paths up from the element, each step a tag with its stable names, a
 * path kept only when one of its steps has such a name (tags alone are a
 * position chain): the shortest that finds the element first, and the
 * shortest that finds it at all.
 */
function pathLocators(snapshot: PageSnapshot, element: Element): ElementLocator[] {
  const found: ElementLocator[] = [];
  const path: Step[] = [];
  let named = false;
  let node: Element | null = element;
  for (
    let level = 0;
    level < MAX_LEVELS && node && node.type === "tag" && node.tagName !== "body";
    level += 1, node = node.parent as Element | null
  ) {
    const step = stepOf(node);
    named ||= step.id !== undefined || step.classes.length > 0 || step.itemprop !== undefined;
    path.unshift(step);
    if (!named) continue;
    const position = placeOnPath(snapshot, path, element, MAX_INDEX);
    if (position < 0) continue;
    if (found.length === 0 || position === 0) found.push({ path: path.map(writtenStep).join(" > "), index: position });
    if (position === 0 || step.id !== undefined) break;
  }
  return found.slice(0, 2);
}

/**
 * From the labels nearest the element (inside it first, then before it): the element's own step within a few levels of
 * the label.
 */
function labelLocators(snapshot: PageSnapshot, element: Element): ElementLocator[] {
  const found: ElementLocator[] = [];
  const step = stepOf(element, true);
  for (const anchor of anchorsNear(snapshot, element)) {
    let up = 0;
    let scope: Element = anchor;
    while (!holds(snapshot, scope, element) && up <= MAX_LEVELS && scope.parent?.type === "tag")
      [scope, up] = [scope.parent as Element, up + 1];
    if (!holds(snapshot, scope, element) || up > MAX_LEVELS) continue;
    const label = snapshot.texts.get(anchor)!;
    const position = stepFindsFromLabel(snapshot, label, up, step).indexOf(element);
    if (position >= 0 && position <= MAX_INDEX) found.push({ path: writtenStep(step), label, up, index: position });
  }
  return found;
}

function anchorsNear(snapshot: PageSnapshot, element: Element): Element[] {
  const { elements, texts } = snapshot;
  const at = snapshot.positions.get(element) ?? -1;
  const own = texts.get(element) ?? textOf(element);
  const isAnchor = (candidate: Element) => {
    const text = texts.get(candidate)!;
    return (
      isLabelText(text) && text !== own && snapshot.innermost.has(candidate) && !holds(snapshot, candidate, element)
    );
  };
  const inside: Element[] = [];
  for (
    let i = at + 1;
    i < elements.length && holds(snapshot, element, elements[i]!) && inside.length < MAX_ANCHORS;
    i += 1
  ) {
    if (isAnchor(elements[i]!) && own.startsWith(texts.get(elements[i]!)!)) inside.push(elements[i]!);
  }
  const before: Element[] = [];
  for (let i = at - 1; i >= Math.max(0, at - LABEL_WINDOW) && before.length < MAX_ANCHORS; i -= 1) {
    if (isAnchor(elements[i]!)) before.push(elements[i]!);
  }
  return [...inside, ...before].slice(0, MAX_ANCHORS);
}

/**
 * Locators from answers: given a field's value on a page (known with
 * confidence), the elements that show it and the locators that find them
 * again. Every locator returned has been applied to this page and read back
 * as the value, so it is right here; whether it holds on the template's
 * other pages is what learning counts.
 */
import type { Field } from "@winnow/platform";
import type { Element } from "domhandler";
import { isLabelText, labelKey, type PageIndex } from "../page/page-index.js";
import { applyLocator, type Locator, locateElement, matches } from "./locator.js";
import { stableId } from "./names.js";
import { MAX_AROUND, relativeStep, selectorStep, spanOf, tagOf, VALUE_ATTRIBUTES, withoutEmpty } from "./places.js";
import { recordReadings } from "./records.js";
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

export function deriveLocators(index: PageIndex, field: Field, value: unknown): Locator[] {
  const found: Locator[] = [];
  const keep = (element: Element, reading: Reading): void => {
    for (const where of elementLocators(index, element)) {
      if (found.length >= MAX_LOCATORS) return;
      const locator = { ...where, ...withoutEmpty(reading) };
      const located = applyLocator(index, locator);
      if (located && agrees(readAs(field, located.raw), value)) found.push(locator);
    }
  };
  const itemNode = field.node.kind === "array" ? field.node.items : undefined;
  if (itemNode?.kind === "object")
    for (const { container, reading } of recordReadings(index, itemNode, value as Record<string, unknown>[]))
      keep(container, reading);
  else if (Array.isArray(value))
    for (const { container, items } of listTargets(index, field, value as string[])) keep(container, { items });
  else for (const { element, reading } of scalarTargets(index, field, value)) keep(element, reading);
  return found;
}

/** The innermost elements whose text shows the value, with the text around it; then attributes that hold it. */
function scalarTargets(index: PageIndex, field: Field, value: unknown): { element: Element; reading: Reading }[] {
  const targets: { element: Element; reading: Reading }[] = [];
  const shows = new Map<Element, [number, number]>();
  for (const element of index.elements) {
    const text = index.text(element);
    if (text.length > MAX_AROUND + String(value).length + 30) continue;
    const span = spanOf(text, value, field.name);
    if (span) shows.set(element, span);
  }
  for (const [element, [start, end]] of shows) {
    if (targets.length >= MAX_TARGETS) break;
    if (element.children.some((child) => shows.has(child as Element))) continue;
    const text = index.text(element);
    // Text around the value that child elements add ("[Paperback]", "(1994)") may differ between pages; the element's
    // own text does not hold it.
    const own = index.ownText(element);
    if (
      (start > 0 || end < text.length) &&
      own.length < text.length &&
      isEqualSpan(spanOf(own, value, field.name), own)
    )
      targets.push({ element, reading: { own: true } });
    targets.push({ element, reading: { prefix: text.slice(0, start), suffix: text.slice(end) } });
  }
  if (typeof value !== "string") return targets;
  for (const element of index.elements) {
    if (targets.length >= 2 * MAX_TARGETS) break;
    const attr = VALUE_ATTRIBUTES.find((name) => {
      const written = element.attribs[name]?.trim();
      return (
        written !== undefined &&
        (written === value || ((name === "href" || name === "src") && index.absoluteUrl(written) === value))
      );
    });
    if (attr) targets.push({ element, reading: { attr } });
  }
  return targets;
}

function isEqualSpan(span: [number, number] | undefined, text: string): boolean {
  return span !== undefined && span[0] === 0 && span[1] === text.length;
}

/**
 * For a list of texts: an element of the first item, and the container holding exactly the list's items under one
 * selector.
 */
function listTargets(index: PageIndex, field: Field, value: string[]): { container: Element; items: string }[] {
  const first = labelKey(value[0]!);
  const found: { container: Element; items: string }[] = [];
  for (const element of index.elements) {
    if (found.length >= MAX_TARGETS) break;
    if (labelKey(index.text(element)) !== first || index.hasChildWithText(element)) continue;
    const items = relativeStep(element);
    let container = element.parent;
    for (let level = 0; level < MAX_LEVELS && container?.type === "tag"; level += 1, container = container.parent) {
      const shown = index
        .select(container as Element, items)
        .map((item) => index.text(item))
        .filter((text) => text !== "");
      if (shown.length > value.length) break;
      if (shown.length === value.length && sameValue(readAs(field, shown), readAs(field, value))) {
        found.push({ container: container as Element, items });
        break;
      }
    }
  }
  return found;
}

/** Ways to find the element again, each checked to find it on this page: by path, and from labels near it. */
function elementLocators(index: PageIndex, element: Element): ElementLocator[] {
  const candidates = [...pathLocators(index, element), ...labelLocators(index, element)];
  return candidates.filter((candidate) => locateElement(index, candidate) === element);
}

/**
 * CSS paths up from the element, each step a tag with its stable names, a
 * path kept only when one of its steps has such a name (tags alone are a
 * position chain): the shortest that finds the element first, and the
 * shortest that finds it at all.
 */
function pathLocators(index: PageIndex, element: Element): ElementLocator[] {
  const found: ElementLocator[] = [];
  let path = "";
  let named = false;
  let node: Element | null = element;
  for (
    let level = 0;
    level < MAX_LEVELS && node && node.type === "tag" && node.tagName !== "body";
    level += 1, node = node.parent as Element | null
  ) {
    const step = selectorStep(node);
    named ||= step !== tagOf(node);
    path = path === "" ? step : `${step} > ${path}`;
    if (!named) continue;
    const position = matches(index, { path }).indexOf(element);
    if (position < 0 || position > MAX_INDEX) continue;
    if (found.length === 0 || position === 0) found.push({ path, index: position });
    if (position === 0 || stableId(node)) break;
  }
  return found.slice(0, 2);
}

/**
 * From the labels nearest the element (inside it first, then before it): the element's own step within a few levels of
 * the label.
 */
function labelLocators(index: PageIndex, element: Element): ElementLocator[] {
  const found: ElementLocator[] = [];
  const path = relativeStep(element);
  for (const anchor of anchorsNear(index, element)) {
    let up = 0;
    let scope: Element = anchor;
    while (!index.contains(scope, element) && up <= MAX_LEVELS && scope.parent?.type === "tag")
      [scope, up] = [scope.parent as Element, up + 1];
    if (!index.contains(scope, element) || up > MAX_LEVELS) continue;
    const label = index.text(anchor);
    const position = matches(index, { path, label, up }).indexOf(element);
    if (position >= 0 && position <= MAX_INDEX) found.push({ path, label, up, index: position });
  }
  return found;
}

function anchorsNear(index: PageIndex, element: Element): Element[] {
  const at = index.position(element);
  const own = index.text(element);
  const isAnchor = (candidate: Element) => {
    const text = index.text(candidate);
    return (
      isLabelText(text) && text !== own && !index.hasChildWithText(candidate) && !index.contains(candidate, element)
    );
  };
  const inside: Element[] = [];
  for (
    let i = at + 1;
    i < index.elements.length && index.contains(element, index.elements[i]!) && inside.length < MAX_ANCHORS;
    i += 1
  ) {
    if (isAnchor(index.elements[i]!) && own.startsWith(index.text(index.elements[i]!))) inside.push(index.elements[i]!);
  }
  const before: Element[] = [];
  for (let i = at - 1; i >= Math.max(0, at - LABEL_WINDOW) && before.length < MAX_ANCHORS; i -= 1) {
    if (isAnchor(index.elements[i]!)) before.push(index.elements[i]!);
  }
  return [...inside, ...before].slice(0, MAX_ANCHORS);
}

/**
 * Ways to find an element again on the template's other pages, each checked
 * on this page's snapshot: CSS paths of steps up from it, and a step from
 * the labels near it; each with where it finds the element. What a path or a
 * step finds is read from the snapshot's document order, as the CSS it writes
 * finds it on the page, rather than running a selector for each candidate.
 */
import { type Element, isTag } from "domhandler";
import { textOf } from "../page/elements.js";
import type { Locator } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import type { Step } from "./steps.js";

/** Levels climbed: from a value to its container, from a label to what holds the value. */
const MAX_LEVELS = 4;
const MAX_INDEX = 5;
/** Elements looked at before a value for its label, nearest first. */
const LABEL_WINDOW = 30;
const MAX_ANCHORS = 3;

type ElementLocator = Pick<Locator, "path" | "label" | "up" | "index">;

/** Ways to find the element again, by path and from labels near it, each where it finds the element on this page. */
export function elementLocators(snapshot: PageSnapshot, element: Element): ElementLocator[] {
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
    const { step } = snapshot.steps.get(node)!;
    named ||= step.id !== undefined || step.classes.length > 0 || step.itemprop !== undefined;
    path.unshift(step);
    if (!named) continue;
    const position = placeOnPath(snapshot, path, element, MAX_INDEX);
    if (position < 0) continue;
    if (found.length === 0 || position === 0)
      found.push({ path: path.map(({ css }) => css).join(" > "), index: position });
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
  const step = snapshot.steps.get(element)!.relative;
  for (const anchor of anchorsNear(snapshot, element)) {
    let up = 0;
    let scope: Element = anchor;
    while (!holds(snapshot, scope, element) && up <= MAX_LEVELS && scope.parent?.type === "tag")
      [scope, up] = [scope.parent as Element, up + 1];
    if (!holds(snapshot, scope, element) || up > MAX_LEVELS) continue;
    // The locator looks from the first element showing the label, as it will on the template's other pages.
    const position = stepFindsFrom(snapshot, snapshot.labels.get(anchor)!, up, step).indexOf(element);
    if (position >= 0 && position <= MAX_INDEX)
      found.push({ path: step.css, label: snapshot.texts.get(anchor)!, up, index: position });
  }
  return found;
}

function anchorsNear(snapshot: PageSnapshot, element: Element): Element[] {
  const { elements, texts } = snapshot;
  const at = snapshot.positions.get(element) ?? -1;
  const own = texts.get(element) ?? textOf(element);
  const isAnchor = (candidate: Element) => {
    return snapshot.labels.has(candidate) && texts.get(candidate) !== own && !holds(snapshot, candidate, element);
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

/** The element is the other or holds it. */
function holds(snapshot: PageSnapshot, ancestor: Element, element: Element): boolean {
  const outer = snapshot.spans.get(ancestor);
  const inner = snapshot.spans.get(element);
  return outer !== undefined && inner !== undefined && outer[0] <= inner[0] && inner[0] < outer[1];
}

/**
 * Where the element stands among the elements under the body that a path (steps, each a child of the one before)
 * finds, in document order; -1 when the path does not find it or finds more than `most` before it.
 */
function placeOnPath(snapshot: PageSnapshot, path: readonly Step[], element: Element, most: number): number {
  const body = snapshot.elements[0];
  const [start, end] = (body && snapshot.spans.get(body)) ?? [0, 0];
  let place = 0;
  for (let at = start + 1; at < end && place <= most; at += 1) {
    const candidate = snapshot.tree[at]!;
    if (!onPath(candidate, path)) continue;
    if (candidate === element) return place;
    place += 1;
  }
  return -1;
}

/** The elements a step finds inside `within` (and `within` itself, with `orSelf`), in document order. */
export function stepFinds(snapshot: PageSnapshot, within: Element, step: Step, orSelf = false): Element[] {
  const span = snapshot.spans.get(within);
  if (!span) return [];
  const found: Element[] = [];
  for (let at = orSelf ? span[0] : span[0] + 1; at < span[1]; at += 1)
    if (matchesStep(snapshot.tree[at]!, step)) found.push(snapshot.tree[at]!);
  return found;
}

/**
 * What a step finds from a label on (`anchor`, the first element showing it): within `up` levels of it, the elements
 * that hold it or follow it.
 */
function stepFindsFrom(snapshot: PageSnapshot, anchor: Element, up: number, step: Step): Element[] {
  let scope: Element = anchor;
  for (let level = 0; level < up && scope.parent?.type === "tag"; level += 1) scope = scope.parent as Element;
  const from = snapshot.positions.get(anchor)!;
  return stepFinds(snapshot, scope, step, true).filter(
    (element) => holds(snapshot, element, anchor) || (snapshot.positions.get(element) ?? -1) > from,
  );
}

function onPath(element: Element, path: readonly Step[]): boolean {
  let node: Element | null = element;
  for (let level = path.length - 1; level >= 0; level -= 1) {
    if (!node || !isTag(node) || !matchesStep(node, path[level]!)) return false;
    node = node.parent as Element | null;
  }
  return true;
}

/**
 * Whether an element is one a step finds, as the CSS it writes matches: the tag, the id and the itemprop as written,
 * each class among the element's.
 */
function matchesStep(element: Element, step: Step): boolean {
  const { attribs } = element;
  if (step.tag !== "*" && element.tagName !== step.tag) return false;
  if (step.id !== undefined && attribs.id !== step.id) return false;
  if (step.itemprop !== undefined && attribs.itemprop !== step.itemprop) return false;
  if (step.classes.length === 0) return true;
  const classes = (attribs.class ?? "").split(/\s+/);
  return step.classes.every((name) => classes.includes(name));
}

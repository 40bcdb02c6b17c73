/**
 * What a locator's path finds on a page snapshot, as its CSS finds it on the
 * page: a path of steps from the body on, or a step from a label's scope on.
 * Deriving locators asks this for each candidate, so it reads the snapshot's
 * document order rather than running a selector each time.
 */
import { type Element, isTag } from "domhandler";
import { isLabelText, labelKey } from "../page/page-index.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { matchesStep, type Step } from "./places.js";

/** The element is the other or holds it. */
export function holds(snapshot: PageSnapshot, ancestor: Element, element: Element): boolean {
  const outer = snapshot.spans.get(ancestor);
  const inner = snapshot.spans.get(element);
  return outer !== undefined && inner !== undefined && outer[0] <= inner[0] && inner[0] < outer[1];
}

/**
 * Where the element stands among the elements under the body that a path (steps, each a child of the one before)
 * finds, in document order; -1 when the path does not find it or finds more than `most` before it.
 */
export function placeOnPath(snapshot: PageSnapshot, path: readonly Step[], element: Element, most: number): number {
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

function onPath(element: Element, path: readonly Step[]): boolean {
  let node: Element | null = element;
  for (let level = path.length - 1; level >= 0; level -= 1) {
    if (!node || !isTag(node) || !matchesStep(node, path[level]!)) return false;
    node = node.parent as Element | null;
  }
  return true;
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
 * What a step finds from a label on: within `up` levels of the first element showing the label, the elements that
 * hold it or follow it.
 */
export function stepFindsFromLabel(snapshot: PageSnapshot, label: string, up: number, step: Step): Element[] {
  const anchor = snapshot.shownBy.get(labelKey(label))?.find((shown) => isLabelText(snapshot.texts.get(shown)!));
  if (!anchor) return [];
  let scope: Element = anchor;
  for (let level = 0; level < up && scope.parent?.type === "tag"; level += 1) scope = scope.parent as Element;
  const from = snapshot.positions.get(anchor)!;
  return stepFinds(snapshot, scope, step, true).filter(
    (element) => holds(snapshot, element, anchor) || (snapshot.positions.get(element) ?? -1) > from,
  );
}

/**
 * Walks over the parsed page that the readers share: elements in document
 * order, ancestors up to a bound, the region that holds a set of elements.
 */
import { isTag, type Element, type ParentNode } from "domhandler";
import { NOT_TEXT } from "./visibility.js";

/** Elements under a node in document order, up to `limit`, without those that hold no page text. */
export function elementsUnder(root: ParentNode, limit: number): Element[] {
  const found: Element[] = [];
  const stack = root.children.filter(isTag).reverse();
  while (stack.length > 0 && found.length < limit) {
    const element = stack.pop()!;
    if (NOT_TEXT.has(element.tagName)) continue;
    found.push(element);
    stack.push(...element.children.filter(isTag).reverse());
  }
  return found;
}

/** The smallest ancestor of the first element whose elements inside are `enough`. */
export function regionOf(elements: Element[], enough: (inside: Element[]) => boolean): Element | undefined {
  for (let node: ParentNode | null = elements[0] ?? null; node && isTag(node); node = node.parent) {
    const ancestor = node;
    if (enough(elements.filter((e) => contains(ancestor, e)))) return ancestor;
  }
  return undefined;
}

export function contains(ancestor: Element, element: Element): boolean {
  for (let node: ParentNode | null = element; node; node = node.parent) if (node === ancestor) return true;
  return false;
}

export function ancestorsUpTo(element: Element, region: Element): Element[] {
  const path: Element[] = [];
  for (let node: ParentNode | null = element.parent; node && isTag(node) && node !== region; node = node.parent) path.push(node);
  return [...path, region];
}

/** The element and its ancestors below `stop` (all of them when `stop` is not one). */
export function* upTo(element: Element, stop: Element): Generator<Element> {
  for (let node: Element | null = element; node && node !== stop; node = node.parent as Element | null) yield node;
}

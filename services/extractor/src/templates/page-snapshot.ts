/**
 * The first phase of learning: one page, read once into the plain data that
 * learning from its answers needs. The second (derive.ts) then reads this
 * snapshot alone and never goes back to the page: the texts of its elements
 * and the steps that name them, its innermost elements by normalised text,
 * its labels, the values its attributes hold, its elements in document order
 * (what a locator's CSS path can find), the page's own lists of records that
 * show a list of objects answered (records.ts), and what each of the
 * template's stored locators reads on the page, in its field's type.
 */
import type { Field } from "@winnow/platform";
import { type Element, isTag } from "domhandler";
import { isLabelText, type PageIndex } from "../page/page-index.js";
import { type AttributeValue, applyLocator, heldValues, type Locator } from "./locator.js";
import { type RecordsShown, recordsShown } from "./records.js";
import { type Step, stepsOf } from "./steps.js";
import { readAs } from "./values.js";

/** The steps that name an element: on a path from the body (with its stable id), and found from something else. */
interface ElementSteps {
  step: Step;
  relative: Step;
}

export interface PageSnapshot {
  /** Elements that hold page text, in document order, as the page index bounds them. */
  elements: readonly Element[];
  /** Each of `elements`' place in that order. */
  positions: ReadonlyMap<Element, number>;
  /**
   * The document's elements in document order, those that hold no page text too: what a CSS path finds (from the body
   * on; a label's scope may reach above it).
   */
  tree: readonly Element[];
  /** Each element's place in `tree`, and where the elements inside it end there. */
  spans: ReadonlyMap<Element, readonly [number, number]>;
  /** Text of each of `elements`. */
  texts: ReadonlyMap<Element, string>;
  /** Own text of each of `elements`, without its child elements'. */
  ownTexts: ReadonlyMap<Element, string>;
  steps: ReadonlyMap<Element, ElementSteps>;
  /** The innermost elements showing a text (no child element shows the same), by its normalised form (labelKey). */
  shownBy: ReadonlyMap<string, readonly Element[]>;
  /**
   * The innermost elements whose text can label a value, each with the first element showing the same label: where a
   * locator from that label looks from.
   */
  labels: ReadonlyMap<Element, Element>;
  /**
   * The attributes of the elements of `tree` that may hold a value, by the value each holds (locator.ts,
   * heldValues).
   */
  attributes: ReadonlyMap<Element, ReadonlyMap<string, AttributeValue>>;
  /** For each list of objects sought (by field name), the page's lists showing it, as records.ts reads them. */
  records: ReadonlyMap<string, readonly RecordsShown[]>;
  /** What each stored locator (the object given) reads on the page, in its field's type: null where it reads nothing. */
  readings: ReadonlyMap<Locator, unknown>;
}

/** A field answered on the page, with its value. */
export interface Answered {
  field: Field;
  value: unknown;
}

/** A locator the template holds for a field. */
export interface Stored {
  field: Field;
  locator: Locator;
}

/**
 * The page's snapshot for the values whose locators are sought and the locators stored: a list of objects sought
 * brings the page's records that show it.
 */
export function pageSnapshot(index: PageIndex, sought: readonly Answered[], stored: readonly Stored[]): PageSnapshot {
  const { elements } = index;
  const { tree, spans } = documentOrder(rootOf(elements[0]));
  const positions = new Map(elements.map((element, at) => [element, at]));
  const texts = new Map<Element, string>();
  const ownTexts = new Map<Element, string>();
  const steps = new Map<Element, ElementSteps>();
  for (const element of elements) {
    texts.set(element, index.text(element));
    ownTexts.set(element, index.ownText(element));
    steps.set(element, stepsOf(element));
  }
  const shownBy = index.shownBy();
  // Each label's innermost elements, each with the first of them.
  const labels = new Map<Element, Element>();
  for (const shown of shownBy.values()) {
    const labelling = shown.filter((element) => isLabelText(texts.get(element)!));
    for (const element of labelling) labels.set(element, labelling[0]!);
  }
  const attributes = new Map<Element, ReadonlyMap<string, AttributeValue>>();
  for (const element of tree) {
    const held = heldValues(element, index.baseUrl);
    if (held) attributes.set(element, held);
  }
  const records = new Map<string, RecordsShown[]>();
  for (const { field, value } of sought) {
    const { node } = field;
    if (node.kind === "array" && node.items.kind === "object")
      records.set(field.name, recordsShown(index, attributes, node.items, value as Record<string, unknown>[]));
  }
  // A list's container may stand outside the indexed elements: it and what holds it are named too.
  for (const { container } of [...records.values()].flat())
    for (
      let node: Element | null = container;
      node && isTag(node) && !steps.has(node);
      node = node.parent as Element | null
    )
      steps.set(node, stepsOf(node));
  const readings = new Map<Locator, unknown>();
  for (const { field, locator } of stored) {
    const located = applyLocator(index, locator);
    readings.set(locator, located ? readAs(field, located.raw) : null);
  }
  return { elements, positions, tree, spans, texts, ownTexts, steps, shownBy, labels, attributes, records, readings };
}

/** The topmost element above the body: <html>. */
function rootOf(body: Element | undefined): Element | undefined {
  let root = body;
  while (root?.parent && isTag(root.parent)) root = root.parent;
  return root;
}

/**
 * The root and every element under it in document order, each with its place and the end of the elements inside it
 * (walked without recursion: a page may nest deeper than the stack goes).
 */
function documentOrder(root: Element | undefined): {
  tree: Element[];
  spans: Map<Element, readonly [number, number]>;
} {
  const tree: Element[] = [];
  const stack = root ? [root] : [];
  while (stack.length > 0) {
    const element = stack.pop()!;
    tree.push(element);
    const { children } = element;
    for (let i = children.length - 1; i >= 0; i -= 1) if (isTag(children[i]!)) stack.push(children[i] as Element);
  }
  const at = new Map(tree.map((element, place) => [element, place]));
  const ends = tree.map((_, place) => place + 1);
  // Last to first: an element's end is known before its parent takes it as its own.
  for (let place = tree.length - 1; place > 0; place -= 1) {
    const parent = at.get(tree[place]!.parent as Element);
    if (parent !== undefined) ends[parent] = Math.max(ends[parent]!, ends[place]!);
  }
  return { tree, spans: new Map(tree.map((element, place) => [element, [place, ends[place]!] as const])) };
}

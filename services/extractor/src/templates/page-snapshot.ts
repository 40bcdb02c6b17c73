/**
 * The first phase of learning: one page, read once into the plain data that
 * finding locators for its answers needs. Deriving them (derive.ts) then
 * reads this snapshot alone and never goes back to the page: the texts of its
 * elements and the steps that name them, its innermost elements by
 * normalised text, its labels, the values its attributes hold, its elements
 * in document order (what a locator's CSS path can find) and the page's own
 * lists of records that show a list of objects answered.
 */
import type { Field, ObjectNode } from "@winnow/platform";
import { type Element, isTag } from "domhandler";
import { isLabelText, labelKey, type PageIndex } from "../page/page-index.js";
import { type Located, type Locator, readAt } from "./locator.js";
import { type Step, stepsOf, VALUE_ATTRIBUTES } from "./places.js";
import { recordReadings } from "./records.js";

/** An attribute that may hold a value, with what a locator reading it reads: links made absolute. */
interface AttributeValue {
  attr: (typeof VALUE_ATTRIBUTES)[number];
  /** As written, trimmed. */
  written: string;
  /** What the locator reads; undefined when it reads nothing (an empty attribute, a link that is no web address). */
  raw: string | undefined;
}

/** A page's list whose records show an answered list of objects: its container, how to read it, and what that reads. */
interface RecordsShown {
  container: Element;
  reading: Pick<Locator, "items" | "fields">;
  /** What the reading reads there; undefined when it reads no record. */
  raw: Located["raw"] | undefined;
}

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
  /** Attributes of `elements` that may hold a value, each element's in the order locators try them. */
  attributes: ReadonlyMap<Element, readonly AttributeValue[]>;
  /** For each answered list of objects (by field name), the page's lists showing it, as records.ts reads them. */
  records: ReadonlyMap<string, readonly RecordsShown[]>;
}

/** A field answered on the page, with its value. */
export interface Answered {
  field: Field;
  value: unknown;
}

/** The page's snapshot for these answers: a list of objects answered brings the page's records that show it. */
export function pageSnapshot(index: PageIndex, answered: readonly Answered[]): PageSnapshot {
  const { elements } = index;
  const { tree, spans } = documentOrder(rootOf(elements[0]));
  const positions = new Map(elements.map((element, at) => [element, at]));
  const texts = new Map<Element, string>();
  const ownTexts = new Map<Element, string>();
  const steps = new Map<Element, ElementSteps>();
  const attributes = new Map<Element, AttributeValue[]>();
  for (const element of elements) {
    texts.set(element, index.text(element));
    ownTexts.set(element, index.ownText(element));
    steps.set(element, stepsOf(element));
    const values = VALUE_ATTRIBUTES.flatMap((attr) => {
      const written = element.attribs[attr]?.trim();
      if (written === undefined) return [];
      const raw = !written ? undefined : attr === "href" || attr === "src" ? index.absoluteUrl(written) : written;
      return [{ attr, written, raw }];
    });
    if (values.length > 0) attributes.set(element, values);
  }
  const shownBy = new Map<string, Element[]>();
  const labels = new Map<Element, Element>();
  const firstLabelled = new Map<string, Element>();
  for (const element of elements) {
    const text = texts.get(element)!;
    // Innermost: none of its indexed children shows the same text.
    const inner = !element.children.some(
      (child) => child.type === "tag" && positions.has(child as Element) && texts.get(child as Element) === text,
    );
    if (!inner) continue;
    const key = labelKey(text);
    const shown = shownBy.get(key);
    if (shown) shown.push(element);
    else shownBy.set(key, [element]);
    if (!isLabelText(text)) continue;
    if (!firstLabelled.has(key)) firstLabelled.set(key, element);
    labels.set(element, firstLabelled.get(key)!);
  }
  const records = new Map<string, RecordsShown[]>();
  for (const { field, value } of answered) {
    const { node } = field;
    if (node.kind === "array" && node.items.kind === "object")
      records.set(field.name, recordsShown(index, node.items, value as Record<string, unknown>[]));
  }
  // A list's container may stand outside the indexed elements: it and what holds it are named too.
  for (const { container } of [...records.values()].flat())
    for (
      let node: Element | null = container;
      node && isTag(node) && !steps.has(node);
      node = node.parent as Element | null
    )
      steps.set(node, stepsOf(node));
  return { elements, positions, tree, spans, texts, ownTexts, steps, shownBy, labels, attributes, records };
}

function recordsShown(index: PageIndex, item: ObjectNode, value: Record<string, unknown>[]): RecordsShown[] {
  return recordReadings(index, item, value).map(({ container, reading }) => ({
    container,
    reading,
    raw: readAt(index, container, reading)?.raw,
  }));
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

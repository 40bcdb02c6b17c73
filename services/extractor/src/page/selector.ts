/**
 * A short CSS selector for one element of a parsed page, so that a caller
 * can find in a browser the element a value was read from. The element's
 * own id, itemprop, class or tag when no other element has it, else a path of
 * child steps from the nearest ancestor that has one (or from <html>).
 * Unique-selector packages (@medv/finder, css-selector-generator) need a
 * browser DOM; this works on the parsed page the engines read (domhandler).
 */
import cssesc from "cssesc";
import { type Document, type Element, isTag } from "domhandler";

/**
 * Names that templates generate per build or per item (CSS-module hashes,
 * numbered ids) change between pages and loads: a selector built on them
 * would not find the element again.
 */
const UNSTABLE =
  /\d{3,}|^[a-z]{1,3}-[a-zA-Z0-9]{5,}$|[A-Z0-9]{6,}|^(active|selected|open|hover|focus|visible|hidden|is-|js-)/;

/** How often each id, itemprop and tag.class occurs in a document, counted once per document. */
type Counts = Map<string, number>;
const countsByDocument = new WeakMap<Document, Counts>();

/** Each element's selector, once: a list's records share their ancestors' part of it. */
const selectors = new WeakMap<Element, string>();

export function selectorOf(element: Element): string {
  const counts = countsFor(element);
  // The element and its ancestors up to the nearest whose selector is known or that has a name of its own.
  const path: Element[] = [];
  let selector: string | undefined;
  for (let node: Element | undefined = element; node && selector === undefined; node = parentElement(node)) {
    selector = selectors.get(node);
    if (selector !== undefined) break;
    selector = uniqueName(node, counts);
    if (selector !== undefined) selectors.set(node, selector);
    else path.push(node);
  }
  for (const node of path.reverse()) {
    const step = childStep(node);
    selector = selector === undefined ? step : `${selector} > ${step}`;
    selectors.set(node, selector);
  }
  return selector ?? "";
}

/** A selector only this element matches in its document: its id, its itemprop, or one of its stable classes. */
function uniqueName(element: Element, counts: Counts): string | undefined {
  const key = nameKeys(element).find((name) => counts.get(name) === 1);
  return key === undefined ? undefined : written(element, key);
}

/**
 * An element's names as counted, unescaped, in the order they are tried: `#id`, `tag[itemprop`, `tag.class`, the
 * tag. Escaping is for the one selector written, not for counting every element's names (cssesc on each class of a
 * large page was a good part of its evidence's cost).
 */
function nameKeys(element: Element): string[] {
  const { id, itemprop, class: classes } = element.attribs;
  const tag = element.tagName;
  const keys: string[] = [];
  if (id && !UNSTABLE.test(id)) keys.push(`#${id}`);
  if (itemprop) keys.push(`${tag}[${itemprop}`);
  for (const name of (classes ?? "").split(/\s+/)) {
    if (name && !UNSTABLE.test(name)) keys.push(`${tag}.${name}`);
  }
  // Last, the tag alone: the page's one <table> or <h1>.
  keys.push(tag);
  return keys;
}

/** The selector a name's key stands for, escaped. */
function written(element: Element, key: string): string {
  const tag = element.tagName;
  if (key === tag) return tag;
  if (key.startsWith("#")) return `#${cssesc(key.slice(1), { isIdentifier: true })}`;
  const value = key.slice(tag.length + 1);
  return key[tag.length] === "["
    ? `${tag}[itemprop=${cssesc(value, { quotes: "double", wrap: true })}]`
    : `${tag}.${cssesc(value, { isIdentifier: true })}`;
}

/** Each element's child step, computed for all of a parent's children at once. */
const stepsByElement = new WeakMap<Element, string>();

/**
 * The element among its parent's children: its tag, numbered among siblings of the same tag when it has any. A
 * parent's children are numbered in one pass when the first of them is asked for: a list of n records asks for each,
 * and counting the siblings again for each would cost n² (a 3,000-record page's evidence took a minute).
 */
function childStep(element: Element): string {
  const parent = element.parent;
  if (!parent) return element.tagName;
  let step = stepsByElement.get(element);
  if (step === undefined) {
    numberChildren(parent.children.filter(isTag));
    step = stepsByElement.get(element) ?? element.tagName;
  }
  return step;
}

function numberChildren(children: Element[]): void {
  const perTag = new Map<string, number>();
  for (const child of children) perTag.set(child.tagName, (perTag.get(child.tagName) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const child of children) {
    const nth = (seen.get(child.tagName) ?? 0) + 1;
    seen.set(child.tagName, nth);
    stepsByElement.set(child, perTag.get(child.tagName) === 1 ? child.tagName : `${child.tagName}:nth-of-type(${nth})`);
  }
}

function parentElement(element: Element): Element | undefined {
  return element.parent && isTag(element.parent) ? element.parent : undefined;
}

function countsFor(element: Element): Counts {
  let root: Element | Document = element;
  while (root.parent) root = root.parent as Element | Document;
  const document = root as Document;
  let counts = countsByDocument.get(document);
  if (!counts) {
    counts = new Map();
    // The names of elements with a tag and class attribute and no id or itemprop, written once: a list's records
    // repeat a few of them.
    const plain = new Map<string, Map<string, string[]>>();
    const stack = [...document.children];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (!isTag(node)) continue;
      let keys: string[] | undefined;
      if (node.attribs.id === undefined && node.attribs.itemprop === undefined) {
        let byClass = plain.get(node.tagName);
        if (!byClass) {
          byClass = new Map();
          plain.set(node.tagName, byClass);
        }
        const attribute = node.attribs.class ?? "";
        keys = byClass.get(attribute);
        if (!keys) {
          keys = nameKeys(node);
          byClass.set(attribute, keys);
        }
      } else keys = nameKeys(node);
      for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
      // One push per child: spreading an element's children as arguments overflows the stack past ~120k of them.
      for (const child of node.children) stack.push(child);
    }
    countsByDocument.set(document, counts);
  }
  return counts;
}

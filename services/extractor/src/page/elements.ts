/**
 * The parsed page's elements as readers meet them, shared by every engine:
 * which elements are seen (text hidden by an attribute, an inline style or a
 * class that says so is metadata or another view), walks in document order
 * (ancestors up to a bound, the region that holds a set of elements), and
 * the text forms, one of each: page text as a reader sees it (whitespace
 * collapsed), text for comparing names written differently, and the text an
 * element shows.
 */
import type { Cheerio, CheerioAPI } from "cheerio";
import { type AnyNode, type Element, hasChildren, isTag, isText, type ParentNode, type Text } from "domhandler";
import { decodeHTML } from "entities";

/** Elements whose content is not the page's text. */
export const NOT_TEXT = new Set([
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "iframe",
  "select",
  "button",
]);

/**
 * The document's <body>, where the parser puts it (html > body): `$("body")` compiles a selector and walks the whole
 * document for it, and a page's extraction asked for it several times. Any other tree is searched as the selector does.
 */
export function bodyOf($: CheerioAPI): Element | undefined {
  for (const html of $.root()[0]?.children ?? [])
    if (isTag(html) && html.name === "html")
      for (const body of html.children) if (isTag(body) && body.name === "body") return body;
  return $("body").get(0);
}

/** Each loaded document's elements in document order (page.ts changes no document once loaded). */
const documentIndex = new WeakMap<AnyNode, Element[]>();

/**
 * The document's elements in document order, template contents included, as a selector query from the root finds
 * them: one walk per page, where each of the engines' dozen queries by tag or attribute compiled its selector and
 * walked the whole document.
 */
export function documentElements($: CheerioAPI): Element[] {
  const root = $.root()[0]!;
  let elements = documentIndex.get(root);
  if (!elements) {
    elements = [];
    const stack: AnyNode[] = hasChildren(root) ? [...root.children].reverse() : [];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (isTag(node)) elements.push(node);
      if (hasChildren(node)) for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i]!);
    }
    documentIndex.set(root, elements);
  }
  return elements;
}

/** The document's elements with one of these tag names, in document order: `$("p, li")` without the query. */
export function elementsNamed($: CheerioAPI, names: Iterable<string>): Cheerio<Element> {
  const wanted = new Set(names);
  return $(documentElements($).filter((element) => wanted.has(element.name)));
}

const HIDDEN_CLASS = /(^|[-_])(hidden|sr-only|visually-hidden)$/;

/** A declaration of an inline style that hides the element's text: no box, an invisible one, or a zero font size. */
const HIDING_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*(?:0+(?:\.0*)?|\.0+)[a-z%]*)\s*(?:!important\s*)?(?:;|$)/i;

/**
 * Hidden by the markup itself, whatever the stylesheets say: the hidden attribute or an inline style. Such text is
 * never shown to a reader, so it is no one's content (and the usual place for text meant only for a model).
 */
export function isInlineHidden(element: Element): boolean {
  const { hidden, style } = element.attribs;
  return hidden !== undefined || (style !== undefined && HIDING_STYLE.test(style));
}

export function isHidden(element: Element): boolean {
  const { class: classes = "" } = element.attribs;
  return (
    isInlineHidden(element) ||
    element.attribs["aria-hidden"] === "true" ||
    // Only a class ending in one of the words can hide: most elements' classes are not split to find out.
    ((classes.includes("hidden") || classes.includes("sr-only")) &&
      classes.split(/\s+/).some((token) => HIDDEN_CLASS.test(token)))
  );
}

/** The element or one of its ancestors is hidden. */
export function isHiddenWithin(element: Element): boolean {
  for (let node: Element | null = element; node?.type === "tag"; node = node.parent as Element | null)
    if (isHidden(node)) return true;
  return false;
}

/** Elements under a node in document order, up to `limit`, without those that hold no page text. */
export function elementsUnder(root: ParentNode, limit: number): Element[] {
  const found: Element[] = [];
  const stack = root.children.filter(isTag).reverse();
  while (stack.length > 0 && found.length < limit) {
    const element = stack.pop()!;
    if (NOT_TEXT.has(element.tagName)) continue;
    found.push(element);
    // One push per child: spreading an element's children as arguments overflows the stack past ~120k of them.
    const { children } = element;
    for (let i = children.length - 1; i >= 0; i -= 1) if (isTag(children[i]!)) stack.push(children[i] as Element);
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
  for (let node: ParentNode | null = element.parent; node && isTag(node) && node !== region; node = node.parent)
    path.push(node);
  return [...path, region];
}

/** The element and its ancestors below `stop` (all of them when `stop` is not one). */
export function* upTo(element: Element, stop: Element): Generator<Element> {
  for (let node: Element | null = element; node && node !== stop; node = node.parent as Element | null) yield node;
}

/** Whitespace that collapsing changes: a run, or a line break, tab or other space than " ". */
const LOOSE_SPACE = /\s\s|[^\S ]/;

/** Whitespace runs as one space, trimmed (most texts have none to collapse: a test is cheaper than a rewrite). */
export function collapsed(text: string): string {
  return (LOOSE_SPACE.test(text) ? text.replace(/\s+/g, " ") : text).trim();
}

/** Text from markup attributes and meta tags: entities decoded, whitespace collapsed; undefined when empty. */
export function decodedText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : collapsed(decodeHTML(text)) || undefined;
}

/** Lower-case words separated by single spaces, punctuation dropped: "Site – News" and "site news" compare equal. */
export function comparable(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Text reduced to its letters and digits, for comparing names written differently. */
export function squashed(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/** The element's own text nodes, without its descendants'. */
export function ownText(element: Element): string {
  let text = "";
  for (const child of element.children) if (child.type === "text") text += (child as Text).data;
  return text;
}

/**
 * Elements a browser lays out apart from their neighbours, whatever the markup's spacing: blocks, list items, table
 * cells and rows, line breaks. Inline elements (a price's "<strong>399</strong><sup>.99</sup>") join as written.
 */
const APART = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "br",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "option",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);

/** An inline style that makes an element a box of its own (a <span> shown as a block). */
const BOX_STYLE = /(?:^|;)\s*display\s*:\s*(?:block|flex|grid|table[a-z-]*|list-item)\b/i;

/** The element's text is laid out apart from its neighbours': they are never read as one word. */
export function laidOutApart(element: Element): boolean {
  if (APART.has(element.tagName)) return true;
  const { style } = element.attribs;
  return style !== undefined && BOX_STYLE.test(style);
}

/**
 * A node's text as a browser lays it out, not collapsed: a space wherever an element stands apart (a block, a cell,
 * a line break), inline elements joined as written; elements `shows` rejects left out.
 */
export function laidOutText(node: AnyNode, shows: (element: Element) => boolean = () => true): string {
  if (isText(node)) return node.data;
  if (!isTag(node) || !shows(node)) return "";
  let text = "";
  for (const child of node.children) text += laidOutText(child, shows);
  return laidOutApart(node) ? ` ${text} ` : text;
}

const showsPageText = (element: Element): boolean =>
  !NOT_TEXT.has(element.tagName) && element.attribs["aria-hidden"] !== "true";

/**
 * An element's text as laid out (see laidOutText) without that of elements
 * holding no page text (an image in <noscript>) or hidden from assistive
 * technology as a visual duplicate ("$2195" for "$21.95"), whitespace
 * collapsed, and leading marks such as a checkbox glyph ("▢ 2 cups flour")
 * dropped.
 */
export function textOf(element: Element): string {
  return textWithout(element, () => false);
}

/** textOf, without the text of elements `leaveOut` names. */
export function textWithout(element: Element, leaveOut: (element: Element) => boolean): string {
  const shows = (inner: Element): boolean => showsPageText(inner) && !leaveOut(inner);
  let text = "";
  for (const child of element.children) text += laidOutText(child, shows);
  return collapsed(text).replace(/^[\p{So}\s]+/u, "");
}

/** An element's text as the lines a browser lays it out in: broken wherever an element stands apart (a <br>, a block). */
export function linesOf(element: Element): string[] {
  const marked = (node: AnyNode): string => {
    if (isText(node)) return node.data;
    if (!isTag(node) || !showsPageText(node)) return "";
    const text = node.children.map(marked).join("");
    return laidOutApart(node) ? `\n${text}\n` : text;
  };
  return element.children
    .map(marked)
    .join("")
    .split("\n")
    .map(collapsed)
    .filter((line) => line !== "");
}

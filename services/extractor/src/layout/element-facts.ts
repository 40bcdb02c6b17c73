/**
 * What reading records asks of an element again and again, read once: the
 * text it shows as a value (kept by element, weakly, so a page's entries go
 * with its document), its classes (by class attribute) and the currency a
 * text names (by text).
 */
import { type Element, isTag, isText } from "domhandler";
import { laidOutApart, NOT_TEXT, oneSpaced } from "../page/elements.js";
import { rememberedByText } from "../remembered.js";
import { currencyCode } from "../schema/normalize.js";
import { isUnseen } from "./hidden.js";

/** Struck-through text is an old value (a price before the discount). */
const STRUCK = new Set(["s", "strike", "del"]);

const spaced = new WeakMap<Element, string>();

/**
 * The text an element shows as a value: hidden parts, parts that are not
 * page text and struck-through parts left out, whitespace collapsed.
 */
export function valueText(element: Element): string {
  return spacedText(element).trim();
}

/** The text with whitespace runs as one space, its edges kept: an inline element's neighbours are joined as written. */
function spacedText(element: Element): string {
  let text = spaced.get(element);
  if (text !== undefined) return text;
  let raw = "";
  for (const node of element.children) {
    if (isText(node)) raw += node.data;
    else if (isTag(node) && shows(node)) {
      const inner = spacedText(node);
      // A price's cents raised after its whole amount ("$12<sup>99</sup>") are its decimals.
      if (node.tagName === "sup" && /\d$/.test(raw) && /^\d{2}$/.test(inner.trim())) raw += `.${inner.trim()}`;
      else raw += laidOutApart(node) ? ` ${inner} ` : inner;
    }
  }
  text = oneSpaced(raw);
  spaced.set(element, text);
  return text;
}

function shows(element: Element): boolean {
  return !NOT_TEXT.has(element.tagName) && !STRUCK.has(element.tagName) && !isUnseen(element);
}

const NUMBERED = /(^|[-_])\d+($|[-_])|^[a-z]+\d+$/i;
/**
 * Class sets by class attribute: a list's records repeat the same few attributes, and a set per element was much of
 * segmentation's garbage.
 */
const classSetOf = rememberedByText(
  (attribute): ReadonlySet<string> => new Set(attribute.split(/\s+/).filter((c) => c.length > 0 && !NUMBERED.test(c))),
);

/**
 * The element's classes, without those that number it ("review-3", "a-star-4-5", "item12"): a part of the name
 * that is a number, or a word followed by one. A generated name with digits among its letters ("css-1q2w3e",
 * as CSS-in-JS writes them) is kept: it names a place as any other class does.
 */
export function classesOf(element: Element): ReadonlySet<string> {
  return classSetOf(element.attribs.class ?? "");
}

/** The currency a text names (normalize.ts's reading), remembered by text: lists repeat the same few. */
export const currencyOf = rememberedByText(currencyCode);

/**
 * The engine's text forms, one of each: page text as a reader sees it
 * (whitespace collapsed), text for comparing names written differently, and
 * the text an element shows.
 */
import { isTag, isText, type ChildNode, type Element, type Text } from "domhandler";
import { decodeHTML } from "entities";
import { NOT_TEXT } from "./visibility.js";

/** Whitespace runs as one space, trimmed. */
export function collapsed(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Text from markup attributes and meta tags: entities decoded, whitespace collapsed; undefined when empty. */
export function decodedText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : collapsed(decodeHTML(text)) || undefined;
}

/** Lower-case words separated by single spaces, punctuation dropped: "Site – News" and "site news" compare equal. */
export function comparable(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
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
 * An element's text without that of elements holding no page text (an image
 * in <noscript>) or hidden from assistive technology as a visual duplicate
 * ("$2195" for "$21.95"), whitespace collapsed, and leading marks such as a
 * checkbox glyph ("▢ 2 cups flour") dropped.
 */
export function textOf(element: Element): string {
  let text = "";
  const add = (node: ChildNode): void => {
    if (isText(node)) text += node.data;
    else if (isTag(node) && !NOT_TEXT.has(node.tagName) && node.attribs["aria-hidden"] !== "true") node.children.forEach(add);
  };
  element.children.forEach(add);
  return collapsed(text).replace(/^[\p{So}\s]+/u, "");
}

/**
 * Whether readers see an element, as far as the HTML alone tells: text
 * hidden by an attribute, an inline style or a class that says so is
 * metadata or another view (a popover, another edition's details).
 */
import type { Element } from "domhandler";

/** Elements whose content is not the page's text. */
export const NOT_TEXT = new Set(["head", "script", "style", "noscript", "template", "svg", "iframe", "select", "button"]);

const HIDDEN_CLASS = /(^|[-_])(hidden|sr-only|visually-hidden)$/;

export function isHidden(element: Element): boolean {
  const { hidden, style = "", class: classes = "" } = element.attribs;
  return hidden !== undefined || element.attribs["aria-hidden"] === "true" || /display:\s*none/.test(style) || classes.split(/\s+/).some((token) => HIDDEN_CLASS.test(token));
}

/** The element or one of its ancestors is hidden. */
export function isHiddenWithin(element: Element): boolean {
  for (let node: Element | null = element; node?.type === "tag"; node = node.parent as Element | null) if (isHidden(node)) return true;
  return false;
}

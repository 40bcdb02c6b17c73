/**
 * Whether readers see an element, for reading records: the engine's rule
 * (page/elements.ts: a hidden attribute, aria-hidden, display:none, a
 * class that says hidden), except that a class which only clips overflow
 * ("overflow-hidden", "card-overflow-x-hidden") hides nothing: the cards of
 * product grids carry it around all their text.
 */
import type { Element } from "domhandler";

const HIDDEN_CLASS = /(^|[-_])(hidden|sr-only|visually-hidden)$/;
const CLIPS_ONLY = /overflow([-_][xy])?[-_]hidden$/;

export function isUnseen(element: Element): boolean {
  const { hidden, style, class: classes } = element.attribs;
  if (
    hidden !== undefined ||
    element.attribs["aria-hidden"] === "true" ||
    (style !== undefined && /display:\s*none/.test(style))
  )
    return true;
  return (
    !!classes?.includes("hidden") &&
    classes.split(/\s+/).some((token) => HIDDEN_CLASS.test(token) && !CLIPS_ONLY.test(token))
  );
}

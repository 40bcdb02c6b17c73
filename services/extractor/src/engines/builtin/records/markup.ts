/**
 * The words an element's markup names it by, read once per element (kept
 * weakly, so a page's entries go with its document).
 */
import type { Element } from "domhandler";
import { markupWords } from "../blocks/fields.js";

const words = new WeakMap<Element, Set<string>>();

/** The words an element's markup names it by (class, id, itemprop, data attribute names; singular). */
export function wordsOf(element: Element): Set<string> {
  let found = words.get(element);
  if (!found) {
    found = markupWords(element);
    words.set(element, found);
  }
  return found;
}

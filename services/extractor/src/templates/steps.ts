/**
 * The CSS steps a locator's paths are made of: each names an element by its
 * tag and stable names (names.ts), as data and as CSS.
 */
import type { Element } from "domhandler";
import { stableClasses, stableId, stableItemprop } from "./names.js";

/** One step of a path as data: the tag ("*" for any) and the stable names the element must have, and as CSS. */
export interface Step {
  tag: string;
  id?: string;
  classes: string[];
  itemprop?: string;
  /** As CSS writes it: `div#main.price[itemprop="price"]`. */
  css: string;
}

/**
 * The steps that name the element: its tag with its stable id, classes and itemprop, on a path from the body; and
 * without its id, which would name it alone, where it is found from something else.
 */
export function stepsOf(element: Element): { step: Step; relative: Step } {
  const tag = tagOf(element);
  const id = stableId(element);
  const classes = stableClasses(element);
  const itemprop = stableItemprop(element);
  const names = `${classes.map((c) => `.${c}`).join("")}${itemprop ? `[itemprop="${itemprop}"]` : ""}`;
  const relative = { tag, classes, ...(itemprop ? { itemprop } : {}), css: `${tag}${names}` };
  return { step: id ? { ...relative, id, css: `${tag}#${id}${names}` } : relative, relative };
}

/** A step for an element found relative to something else: without its id, which would name it alone. */
export function relativeStep(element: Element): string {
  return stepsOf(element).relative.css;
}

/** The tag as a selector can name it; "*" for a name CSS cannot write ("fb:like"). */
function tagOf(element: Element): string {
  return /^[a-z][a-z0-9-]*$/i.test(element.tagName) ? element.tagName : "*";
}

/**
 * Which ids and classes name a part of a layout, as opposed to one page's
 * content or state: a class such as "price" or "product-title" is the same
 * on every page of a template, while "post-48213", "css-1x9fz2" (generated
 * by a build), "active" (a state) or "Three" (a star widget's rating,
 * page/class-number.ts) are not.
 */
import type { Element } from "domhandler";
import { classNameNumber } from "../page/class-number.js";

/** Classes that say an element's state or position, which change from page to page. */
const STATE_CLASSES = new Set([
  "active",
  "selected",
  "current",
  "open",
  "closed",
  "hover",
  "focus",
  "first",
  "last",
  "odd",
  "even",
  "visible",
  "hidden",
  "show",
  "in",
  "on",
  "off",
  "disabled",
  "clearfix",
  "loaded",
  "lazy",
  "lazyloaded",
]);
const MAX_CLASSES = 2;
const MAX_NAME_LENGTH = 40;

/** A name a layout gives: CSS-safe letters, no run of three digits (an id of content), no generated hash. */
function isStableName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || !/^[A-Za-z][\w-]*$/.test(name)) return false;
  if (/\d{3}/.test(name)) return false;
  // Generated names mix letters and digits in short random runs: "css-1x9fz2", "sc-bdVaJa", "jsx-2a3b".
  return !name
    .split(/[-_]/)
    .some((part) => part.length >= 4 && /\d/.test(part) && /[a-z]/i.test(part) && !/^[a-z]+\d$/i.test(part));
}

export function stableId(element: Element): string | undefined {
  const id = element.attribs.id?.trim();
  return id && isStableName(id) ? id : undefined;
}

/** Up to two stable classes, sorted, so the same element gets the same name on every page. */
export function stableClasses(element: Element): string[] {
  const classes = (element.attribs.class ?? "")
    .split(/\s+/)
    .filter((c) => isStableName(c) && !STATE_CLASSES.has(c.toLowerCase()) && classNameNumber(c) === undefined);
  return [...new Set(classes)].sort().slice(0, MAX_CLASSES);
}

export function stableItemprop(element: Element): string | undefined {
  const itemprop = element.attribs.itemprop?.trim();
  return itemprop && /^[A-Za-z][\w-]{0,39}$/.test(itemprop) ? itemprop : undefined;
}

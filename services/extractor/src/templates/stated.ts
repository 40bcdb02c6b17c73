/**
 * The values a page states in its structured data (JSON-LD, meta tags,
 * microdata): a builtin answer that is one of them was read from the page's
 * own description of itself, which is what templates may learn from without
 * a model. Values the builtin engine inferred from the layout are not.
 */
import { documentElements } from "../page/document-elements.js";
import type { Page } from "../page/page.js";
import { normalizeText } from "../page/text-match.js";
import { parseNumber } from "../schema/normalize.js";

/** Bounds on the walk, so a page declaring huge data costs no more than a large one. */
const MAX_VALUES = 5_000;
const MAX_DEPTH = 12;

export class StatedValues {
  private readonly values = new Set<string>();

  constructor(page: Page) {
    const add = (value: unknown, depth: number): void => {
      if (this.values.size >= MAX_VALUES || depth > MAX_DEPTH) return;
      if (typeof value === "string" || typeof value === "number") {
        this.values.add(normalizeText(String(value)));
        const number = typeof value === "number" ? value : parseNumber(value);
        if (number !== undefined) this.values.add(String(number));
      } else if (Array.isArray(value)) value.forEach((item) => add(item, depth + 1));
      else if (value && typeof value === "object") Object.values(value).forEach((item) => add(item, depth + 1));
    };
    add(page.structured.jsonLd, 0);
    add([...page.structured.meta.values()], 0);
    for (const element of documentElements(page.$))
      if (element.attribs.itemprop !== undefined) add(element.attribs.content ?? page.$(element).text(), 0);
  }

  /** The value (each item of a list) is stated as such. */
  states(value: unknown): boolean {
    if (Array.isArray(value)) return value.length > 0 && value.every((item) => this.states(item));
    if (typeof value === "number") return this.values.has(String(value));
    return typeof value === "string" && this.values.has(normalizeText(value));
  }
}

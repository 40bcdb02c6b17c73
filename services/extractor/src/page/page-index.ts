/**
 * One page as the template learner reads it: its elements in document order
 * with their positions and texts (each computed once), and its short texts
 * (labels such as "Price:" or "Author") with the innermost elements that
 * show them.
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { bodyOf, collapsed, contains, elementsUnder, ownText, textOf } from "./elements.js";
import { absoluteUrl } from "./page.js";

/** Bound on the elements read, as the builtin engine's walkers have. */
const MAX_ELEMENTS = 20_000;
/** A label is short; longer texts are content. */
const MAX_LABEL_LENGTH = 40;

export class PageIndex {
  readonly elements: Element[];
  private readonly positions = new Map<Element, number>();
  private readonly texts = new Map<Element, string>();
  private labelMap: Map<string, Element[]> | undefined;
  private readonly found = new Map<string, readonly Element[]>();

  constructor(
    readonly $: CheerioAPI,
    readonly baseUrl: URL | undefined,
  ) {
    const body = bodyOf($);
    this.elements = body ? [body, ...elementsUnder(body, MAX_ELEMENTS)] : [];
    this.elements.forEach((element, index) => this.positions.set(element, index));
  }

  position(element: Element): number {
    return this.positions.get(element) ?? -1;
  }

  text(element: Element): string {
    let text = this.texts.get(element);
    if (text === undefined) {
      text = textOf(element);
      this.texts.set(element, text);
    }
    return text;
  }

  /**
   * The body's elements a CSS selector finds, in document order; each selector is run once per page (learning
   * checks every candidate locator against the page, and candidates share their paths). Throws for a selector
   * the parser refuses.
   */
  find(selector: string): readonly Element[] {
    let found = this.found.get(selector);
    if (!found) {
      found = this.$("body").find(selector).toArray();
      this.found.set(selector, found);
    }
    return found;
  }

  /** The element's own text, without its child elements', whitespace collapsed. */
  ownText(element: Element): string {
    return collapsed(ownText(element));
  }

  contains(ancestor: Element, element: Element): boolean {
    return contains(ancestor, element);
  }

  /** A link or source as written on the page, made absolute against its base. */
  absoluteUrl(href: string): string | undefined {
    return absoluteUrl(href, this.baseUrl);
  }

  /**
   * The elements under `within` (and `within` itself, with `orSelf`) that a selector finds; none for a selector the
   * parser refuses.
   */
  select(within: Element, selector: string, orSelf = false): Element[] {
    try {
      const under = this.$(within).find(selector).toArray();
      return orSelf ? [...this.$(within).filter(selector).toArray(), ...under] : under;
    } catch {
      return [];
    }
  }

  /** Innermost elements whose whole text is this label (compared as labelKey). */
  labelled(label: string): Element[] {
    if (!this.labelMap) {
      this.labelMap = new Map();
      for (const element of this.elements) {
        if (!isLabelText(this.text(element)) || this.hasChildWithText(element)) continue;
        const key = labelKey(this.text(element));
        this.labelMap.set(key, [...(this.labelMap.get(key) ?? []), element]);
      }
    }
    return this.labelMap.get(labelKey(label)) ?? [];
  }

  /** The element has a child element showing the same text: it is not the innermost. */
  hasChildWithText(element: Element): boolean {
    const text = this.text(element);
    return element.children.some(
      (child) => child.type === "tag" && this.positions.has(child as Element) && this.text(child as Element) === text,
    );
  }
}

/** A text that can label a value: short and with a letter in it. */
export function isLabelText(text: string): boolean {
  return text.length > 0 && text.length <= MAX_LABEL_LENGTH && /\p{L}/u.test(text);
}

/** Labels compare without case and trailing colons: "Price:" is "price". */
export function labelKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\s:：]+$/u, "")
    .trim();
}

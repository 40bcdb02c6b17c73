/**
 * One page as the template learner reads it: its elements in document order
 * with their positions and texts (each computed once), and its texts with
 * the innermost elements that show them (labels such as "Price:" or
 * "Author" among them).
 */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { bodyOf, collapsed, elementsUnder, ownText, textOf } from "./elements.js";

/** Bound on the elements read, as the builtin engine's walkers have. */
const MAX_ELEMENTS = 20_000;
/** A label is short; longer texts are content. */
const MAX_LABEL_LENGTH = 40;

export class PageIndex {
  readonly elements: Element[];
  private readonly positions = new Map<Element, number>();
  private readonly texts = new Map<Element, string>();
  private shown: Map<string, Element[]> | undefined;
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

  /**
   * The innermost elements showing each text (none of their indexed children shows the same), by its normalised form
   * (labelKey), in document order; read once per page.
   */
  shownBy(): ReadonlyMap<string, readonly Element[]> {
    if (!this.shown) {
      this.shown = new Map();
      for (const element of this.elements) {
        const text = this.text(element);
        const inner = !element.children.some(
          (child) =>
            child.type === "tag" && this.positions.has(child as Element) && this.text(child as Element) === text,
        );
        if (!inner) continue;
        const key = labelKey(text);
        const shown = this.shown.get(key);
        if (shown) shown.push(element);
        else this.shown.set(key, [element]);
      }
    }
    return this.shown;
  }

  /** Innermost elements whose whole text is this label (compared as labelKey). */
  labelled(label: string): Element[] {
    return (this.shownBy().get(labelKey(label)) ?? []).filter((element) => isLabelText(this.text(element)));
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

/**
 * Whether the page states a yes or a no: grounding for a model's boolean,
 * which is never copied from the page's text. It is grounded only where the
 * page shows a marker that says it:
 * - availability (a field whose name speaks of stock or availability):
 *   schema.org availability in the page's data or meta tags, or a text that
 *   says it ("In stock", "Sold out");
 * - an ad (a field whose name speaks of ads or sponsoring): an ad label;
 * - anything else: a checkbox, radio button or switch whose label holds the
 *   field name's words, checked or not.
 * Otherwise nothing on the page says it, and the value stays unverified.
 */
import type { Element } from "domhandler";
import { AD_TEXT } from "../../page/ad-text.js";
import { collapsed } from "../../page/elements.js";
import type { Page } from "../../page/page.js";
import { IN_STOCK, OUT_OF_STOCK } from "../../page/stock-text.js";
import { nameTokens } from "../../schema/field-names.js";
import { parseBoolean } from "../../schema/normalize.js";

const AVAILABILITY_WORDS = new Set(["stock", "instock", "available", "availability", "unavailable", "sold"]);
/** Words that turn an availability field around: `sold_out`, `out_of_stock` are true when it cannot be bought. */
const UNAVAILABLE_WORDS = new Set(["sold", "out", "unavailable"]);
const AD_WORDS = new Set(["ad", "ads", "advert", "advertisement", "sponsored", "sponsor", "promoted"]);
/** Words of a boolean field's name that say it is one, not what it is about (`is_gift_wrapped`). */
const YES_NO_WORDS = new Set(["is", "has", "can", "was", "does", "with"]);
/** A marker is a short text of its own (a badge, a status line), not a sentence that mentions the word. */
const MARKER_CHARS = 40;
const META_AVAILABILITY = ["product:availability", "og:availability", "availability"];
/** Elements whose text the page does not show (a button's does: "Sold out" is often one). */
const NOT_SHOWN = new Set(["head", "script", "style", "noscript", "template"]);

interface Marker {
  value: boolean;
  /** What the page says, for the value's evidence. */
  text: string;
}

export class StatedMarkers {
  private availability: Marker[] | undefined;
  private ads: Marker[] | undefined;
  private controls: Array<Marker & { words: Set<string> }> | undefined;

  constructor(private readonly page: Page) {}

  /** The page's marker that states `value` for the field named `name`, or undefined when none does. */
  support(name: string, value: boolean): string | undefined {
    const words = nameTokens(name);
    if (words.some((word) => AVAILABILITY_WORDS.has(word))) {
      const stated = words.some((word) => UNAVAILABLE_WORDS.has(word)) ? !value : value;
      this.availability ??= this.readAvailability();
      return this.availability.find((marker) => marker.value === stated)?.text;
    }
    if (words.some((word) => AD_WORDS.has(word))) {
      this.ads ??= this.shortTexts().flatMap((text) => (AD_TEXT.test(text) ? [{ value: true, text }] : []));
      return this.ads.find((marker) => marker.value === value)?.text;
    }
    const named = words.filter((word) => !YES_NO_WORDS.has(word));
    this.controls ??= this.readControls();
    return this.controls.find(
      (control) => control.value === value && named.length > 0 && named.every((word) => control.words.has(word)),
    )?.text;
  }

  private readAvailability(): Marker[] {
    const { $, structured } = this.page;
    const stated: string[] = [];
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === "object" && value !== null)
        for (const [key, inner] of Object.entries(value)) {
          if (key === "availability" && typeof inner === "string") stated.push(inner);
          else visit(inner);
        }
    };
    visit(structured.jsonLd);
    $('[itemprop="availability"]').each((_, element) => {
      const { href, content } = element.attribs;
      stated.push(href ?? content ?? $(element).text());
    });
    for (const name of META_AVAILABILITY) stated.push(structured.meta.get(name) ?? "");
    const fromData = stated.flatMap((text) => {
      const value = parseBoolean(text);
      return value === undefined ? [] : [{ value, text }];
    });
    // Out-of-stock words first: "unavailable" holds "available".
    const fromText = this.shortTexts().flatMap((text) =>
      OUT_OF_STOCK.test(text) ? [{ value: false, text }] : IN_STOCK.test(text) ? [{ value: true, text }] : [],
    );
    return [...fromData, ...fromText];
  }

  /** Checkboxes, radio buttons and switches, with their labels' words and whether they are checked. */
  private readControls() {
    const { $ } = this.page;
    return $('input[type="checkbox" i], input[type="radio" i], [role="checkbox"], [role="switch"], [role="radio"]')
      .toArray()
      .flatMap((element) => {
        const text = this.labelOf(element);
        if (!text) return [];
        const value = element.attribs.checked !== undefined || element.attribs["aria-checked"] === "true";
        return [{ value, text, words: new Set(nameTokens(text)) }];
      });
  }

  /** Its aria-label, the label that names it, the label around it, or its own text. */
  private labelOf(element: Element): string {
    const { $ } = this.page;
    const { id } = element.attribs;
    const named = id
      ? $(`label[for="${id.replace(/["\\]/g, "\\$&")}"]`)
          .first()
          .text()
      : "";
    return collapsed(element.attribs["aria-label"] || named || $(element).closest("label").text() || $(element).text());
  }

  /** The page's short texts of their own: a text node's, at most MARKER_CHARS characters. */
  private shortTexts(): string[] {
    const { $ } = this.page;
    return $("body *")
      .contents()
      .toArray()
      .flatMap((node) => {
        if (node.type !== "text" || (node.parent && NOT_SHOWN.has((node.parent as Element).tagName))) return [];
        const text = collapsed(node.data);
        return text !== "" && text.length <= MARKER_CHARS ? [text] : [];
      });
  }
}

/**
 * Whether the page states a value where a reader sees it: the check behind
 * the status `found`. A string is stated when its words stand in the shown
 * text as whole words in order ("Ann" is not in "Announcement"); a number
 * when it is one of the text's numbers in any common written form; a date
 * when the text names that day; a URL when it is one of the page's own links
 * or images. An element's own text is checked first (where the value was
 * read); a value read from structured data (JSON-LD, meta tags) counts as
 * stated only when the visible page says it too.
 */
import type { Element } from "domhandler";
import { datesIn } from "../schema/normalize.js";
import { bodyOf, elementsUnder, isHidden, isHiddenWithin, NOT_TEXT, textOf } from "./elements.js";
import type { Page } from "./page.js";
import { PageUrls } from "./page-urls.js";
import { foldedText, isLongString, normalizeText, numberTokensIn, wordsCovered } from "./text-match.js";

/** A text in the forms values are looked up in: its words, its numbers, the days it names. */
class Shown {
  // Each form read when first asked for: most values of a list are numbers, which need no words.
  private words: { spaced: string; set: Set<string> } | undefined;
  private numbers: Set<number> | undefined;
  private days: Set<string> | undefined;

  constructor(private readonly text: string) {}

  string(value: string): boolean {
    const words = wordsOf(value);
    if (words.length === 0) return false;
    if (!this.words) {
      const shown = wordsOf(this.text);
      // Spaces around every word: a lookup of " ann " finds only the whole word.
      this.words = { spaced: ` ${shown.join(" ")} `, set: new Set(shown) };
    }
    if (this.words.spaced.includes(` ${words.join(" ")} `)) return true;
    return wordsCovered(words, this.words.set);
  }

  number(value: number): boolean {
    this.numbers ??= numberTokensIn(this.text);
    return this.numbers.has(value) || this.numbers.has(Math.abs(value));
  }

  day(value: string): boolean {
    this.days ??= new Set(datesIn(this.text).map(({ date }) => date));
    return this.days.has(value.slice(0, 10));
  }
}

function wordsOf(text: string): string[] {
  const key = wordKey(text);
  return key === "" ? [] : key.split(" ");
}

/**
 * The text's words (letters and digits, case and compatibility forms folded) joined by single spaces, in one replace:
 * every shown element's text is read so, and splitting each by a pattern cost more than the rest of the check.
 */
function wordKey(text: string): string {
  return foldedText(text)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}(?:$|T)/;

/** Elements with more below them hold a section, not a value: their texts are not kept whole. */
const MAX_VALUE_ELEMENTS = 64;
/** Bound on the elements read, as the engine's other walkers have. */
const MAX_ELEMENTS = 20_000;
/** A number or a date read from structured data is stated by a short element showing it (a price, a byline). */
const NUMBER_WORDS = 8;
const DATE_WORDS = 16;

/** A shown element's text that can hold a value whole, with its words (as wordKey writes them) and how many. */
interface ShownText {
  text: string;
  key: string;
  words: number;
}

/**
 * The texts of the page's shown elements that can hold a value whole, in the forms values are looked up in. Each
 * form is built when a value of its kind is first checked: a schema of strings never reads the page's dates.
 */
class ElementTexts {
  private whole: Set<string> | undefined;
  private numbers: Set<number> | undefined;
  private days: Set<string> | undefined;

  constructor(private readonly texts: ShownText[]) {}

  hasWhole(words: string[]): boolean {
    this.whole ??= new Set(this.texts.map((shown) => shown.key));
    return this.whole.has(words.join(" "));
  }

  hasNumber(value: number): boolean {
    this.numbers ??= new Set(
      this.texts
        .filter(({ words }) => words <= NUMBER_WORDS)
        .flatMap(({ text }) => [...numberTokensIn(normalizeText(text))]),
    );
    return this.numbers.has(value) || this.numbers.has(Math.abs(value));
  }

  hasDay(value: string): boolean {
    this.days ??= new Set(
      this.texts.filter(({ words }) => words <= DATE_WORDS).flatMap(({ text }) => datesIn(text).map((d) => d.date)),
    );
    return this.days.has(value.slice(0, 10));
  }
}

/**
 * What a page shows a reader, for checking values against: built once per answer, each part when first needed.
 * A value read from an element is stated when that element shows it. A value read from structured data is
 * stated only when a shown element holds it whole: a short text or a list item is an element's whole text, a
 * number or a date stands in a short element; a longer text stands in the page's text word for word.
 */
export class PageStatements {
  private page: Shown | undefined;
  private readonly elements = new Map<Element, Shown>();
  private texts: ElementTexts | undefined;
  private links: PageUrls | undefined;

  constructor(private readonly source: Page) {}

  /** Whether the value (a scalar; `item`: an item of a list) is stated where a reader sees it. */
  states(value: unknown, element: Element | undefined, item: boolean): boolean {
    if (typeof value === "boolean") return false;
    if (typeof value === "string" && /^https?:/i.test(value) && URL.canParse(value)) return this.linksTo(value);
    if (element && isShown(element)) return check(this.of(element), value);
    const texts = this.elementTexts();
    if (typeof value === "number") return texts.hasNumber(value);
    if (typeof value !== "string") return false;
    if (ISO_DAY.test(value)) return texts.hasDay(value);
    const words = wordsOf(value);
    if (words.length === 0) return false;
    if (texts.hasWhole(words)) return true;
    return !item && isLongString(words) && this.visible().string(value);
  }

  /** Whether the page's shown text names any of these phrases (as whole words, a plural or singular form too). */
  names(phrases: string[]): boolean {
    const visible = this.visible();
    return phrases.some((phrase) => {
      const words = wordsOf(phrase);
      if (words.length === 0) return false;
      const last = words.length - 1;
      const forms = [words[last]!, `${words[last]}s`, words[last]!.replace(/s$/, "")];
      return forms.some((form) => visible.string([...words.slice(0, last), form].join(" ")));
    });
  }

  private of(element: Element): Shown {
    let shown = this.elements.get(element);
    if (!shown) {
      shown = new Shown(textOf(element));
      this.elements.set(element, shown);
    }
    return shown;
  }

  private visible(): Shown {
    if (!this.page) {
      const body = bodyOf(this.source.$);
      this.page = new Shown(body ? textOf(body) : "");
    }
    return this.page;
  }

  private elementTexts(): ElementTexts {
    this.texts ??= new ElementTexts(this.shownTexts());
    return this.texts;
  }

  /**
   * The distinct texts of the shown elements small enough to hold a value. Distinct: a wrapper and its only child,
   * or a block the page repeats, show the same text, whose forms are read once.
   */
  private shownTexts(): ShownText[] {
    const body = bodyOf(this.source.$);
    if (!body) return [];
    const elements = [body, ...elementsUnder(body, MAX_ELEMENTS)];
    // Elements below each one, counted from the last: a child comes after its parent in document order.
    const sizes = new Map<Element, number>();
    for (let i = elements.length - 1; i >= 0; i -= 1) {
      const element = elements[i]!;
      let size = 1;
      for (const child of element.children) size += child.type === "tag" ? (sizes.get(child as Element) ?? 0) : 0;
      sizes.set(element, size);
    }
    // Hidden with an ancestor: a parent comes before its children.
    const hidden = new Set<Element>();
    const seen = new Set<string>();
    const texts: ShownText[] = [];
    for (const element of elements) {
      if (isHidden(element) || hidden.has(element.parent as Element)) {
        hidden.add(element);
        continue;
      }
      if (sizes.get(element)! > MAX_VALUE_ELEMENTS) continue;
      const text = textOf(element);
      if (seen.has(text)) continue;
      seen.add(text);
      const key = wordKey(text);
      if (key !== "") texts.push({ text, key, words: key.split(" ").length });
    }
    return texts;
  }

  /** The page links to it or shows it (an anchor, an image, a canonical link), resolved against the page's base. */
  private linksTo(url: string): boolean {
    this.links ??= new PageUrls(this.source, { declared: false });
    return this.links.has(url);
  }
}

function check(shown: Shown, value: unknown): boolean {
  if (typeof value === "number") return shown.number(value);
  if (typeof value !== "string") return false;
  if (ISO_DAY.test(value) && shown.day(value)) return true;
  return shown.string(value);
}

/** An element a reader sees: in the body's text, not hidden by the markup. */
function isShown(element: Element): boolean {
  for (let node: Element | null = element; node?.type === "tag"; node = node.parent as Element | null)
    if (NOT_TEXT.has(node.tagName)) return false;
  return !isHiddenWithin(element);
}

/**
 * Comparing values with page text: one normalisation for merging parts
 * (deduplication, conflicts) and for grounding (is this value on the page?).
 */

/** Printable ASCII and line breaks: no compatibility form, curly quote or dash to fold, as most page texts are. */
const PLAIN = /^[\t\n\r\x20-\x7e]*$/;

/** Unicode compatibility forms, case, quotes, dashes and whitespace folded. */
export function normalizeText(text: string): string {
  return foldedText(text)
    .replace(/\\(["|/])/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/** Unicode compatibility forms, case, quotes and dashes folded; whitespace as it was. */
export function foldedText(text: string): string {
  return PLAIN.test(text)
    ? text.toLowerCase()
    : text
        .normalize("NFKC")
        .toLowerCase()
        .replace(/[\u2018\u2019\u201a\u2032]/g, "'")
        .replace(/[\u201c\u201d\u201e\u2033]/g, '"')
        .replace(/[\u2010-\u2015\u2212]/g, "-");
}

/** Markdown links and images reduced to their text: "[olive oil](https://...)" reads "olive oil". */
export function withoutUrls(text: string): string {
  return text.replace(/!?\[([^\]]*)\]\([^)\s]*\)/g, "$1");
}

/** A key under which equal-after-normalisation values collide (strings inside arrays and objects too). */
export function valueKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? normalizeText(v) : v));
}

// Digits grouped by commas with a decimal point, or by dots, spaces or thin spaces with a decimal comma.
const POINT_DECIMAL = /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g;
const COMMA_DECIMAL = /\d{1,3}(?:[. \u00a0\u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?/g;

/** Every number the text writes, read as 1,234.5 and as 1.234,5 (both readings kept: the page's locale is unknown). */
export function numbersIn(text: string): Set<number> {
  const numbers = new Set<number>();
  for (const match of text.matchAll(POINT_DECIMAL)) numbers.add(Number(match[0].replaceAll(",", "")));
  for (const match of text.matchAll(COMMA_DECIMAL))
    numbers.add(Number(match[0].replace(/[. \u00a0\u202f]/g, "").replace(",", ".")));
  numbers.delete(Number.NaN);
  return numbers;
}

/**
 * A number written as a token of its own: not the end of a word or of a longer number ("A4", "mp3", the 5 of "4.5");
 * a unit may follow it ("2kg").
 */
export const NUMBER_TOKEN = /(?<![\p{L}\p{N}]|\p{N}[.,])\d+(?:[.,\u00a0\u202f ]\d+)*(?!\p{N}|[.,]\d)/gu;
const WHOLE_POINT_DECIMAL = new RegExp(`^(?:${POINT_DECIMAL.source})$`);
const WHOLE_COMMA_DECIMAL = new RegExp(`^(?:${COMMA_DECIMAL.source})$`);

/**
 * The numbers the text writes as tokens of their own, each read as 1,234.5 and as 1.234,5 where the whole token reads
 * so: a value is on the page as a number the page writes, not as digits inside another.
 */
const SPACE = /[\u00a0\u202f ]/;

export function numberTokensIn(text: string): Set<number> {
  const numbers = new Set<number>();
  for (const [token] of text.matchAll(NUMBER_TOKEN)) {
    // Numbers apart ("4 5") are no one number: each stands alone, or with the groups of three digits after it ("12 345").
    // A token without a space is only itself (most are: a list's evidence reads one per value).
    const apart = SPACE.test(token)
      ? [...token.split(/[\u00a0\u202f ](?!\d{3}(?!\d))/), ...token.split(/[\u00a0\u202f ]/)]
      : [];
    for (const written of new Set([token, ...apart])) {
      if (WHOLE_POINT_DECIMAL.test(written)) numbers.add(Number(written.replaceAll(",", "")));
      if (WHOLE_COMMA_DECIMAL.test(written))
        numbers.add(Number(written.replace(/[. \u00a0\u202f]/g, "").replace(",", ".")));
    }
  }
  numbers.delete(Number.NaN);
  return numbers;
}

/** A JSON object (an item of a list of records), not an array or null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A text as values are looked for in it: a string by its normalised form, a number by any written form of it. */
export class ShownText {
  private readonly text: string;
  private numbers: Set<number> | undefined;

  constructor(text: string) {
    this.text = normalizeText(text);
  }

  /** Every string and number of the value (at any depth) is written in the text. */
  shows(value: unknown): boolean {
    if (typeof value === "string") return this.text.includes(normalizeText(value));
    if (typeof value === "number") {
      this.numbers ??= numbersIn(this.text);
      return this.numbers.has(value);
    }
    if (Array.isArray(value)) return value.every((item) => this.shows(item));
    if (isRecord(value)) return Object.values(value).every((item) => this.shows(item));
    return true;
  }

  /** The value's longest string (at any depth; its most telling text, as a record's title) is written in the text. */
  showsLongestText(value: unknown): boolean {
    const longest = stringsOf(value).reduce((a, b) => (b.length > a.length ? b : a), "");
    return longest !== "" && this.shows(longest);
  }
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (isRecord(value)) return Object.values(value).flatMap(stringsOf);
  return [];
}

/** Long strings (a recipe's step) may be reflowed or trimmed: most of their words on the page suffices. */
const LONG_STRING_WORDS = 6;
const LONG_STRING_COVERAGE = 0.9;

/** A long string (its words, in the page's word form) whose words the page holds nearly all of. */
export function wordsCovered(words: readonly string[], known: ReadonlySet<string>): boolean {
  return (
    words.length >= LONG_STRING_WORDS &&
    words.filter((word) => known.has(word)).length / words.length >= LONG_STRING_COVERAGE
  );
}

/** Whether a string is long enough to be matched by most of its words (wordsCovered). */
export function isLongString(words: readonly string[]): boolean {
  return words.length >= LONG_STRING_WORDS;
}

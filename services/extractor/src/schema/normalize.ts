/**
 * Values as pages write them, read into the forms a schema wants: numbers in
 * their written forms, booleans, ISO 8601 dates, currencies, rating scales
 * (durations and measures: units.ts). Shared by both engines (shape.ts applies it to the model's
 * answer and to the builtin engine's candidates alike). Each reader returns
 * undefined rather than guess when the text does not say one thing.
 */

/** Currency symbols and the ISO 4217 codes they stand for; "$" alone is read as USD, as most pages mean. */
const CURRENCY_SYMBOLS = new Map([
  ["us$", "USD"],
  ["$", "USD"],
  ["€", "EUR"],
  ["£", "GBP"],
  ["¥", "JPY"],
  ["₹", "INR"],
  ["c$", "CAD"],
  ["ca$", "CAD"],
  ["a$", "AUD"],
  ["au$", "AUD"],
  ["r$", "BRL"],
  ["chf", "CHF"],
  ["kr", "SEK"],
  ["zł", "PLN"],
  ["₩", "KRW"],
  ["₽", "RUB"],
]);
const CODES = "USD|EUR|GBP|JPY|CNY|INR|CAD|AUD|CHF|SEK|NOK|DKK|PLN|BRL|MXN|KRW|RUB|NZD|ZAR";
const CURRENCY_CODE = new RegExp(`\\b(${CODES})\\b`);
/** Each symbol's test, longest symbols first so "US$" is not read as "$"; built once (a list reads thousands of prices). */
const SYMBOL_TESTS = [...CURRENCY_SYMBOLS]
  .sort((a, b) => b[0].length - a[0].length)
  .map(([symbol, iso]): [(lower: string) => boolean, string] => {
    if (symbol.length === 1) return [(lower) => lower.includes(symbol), iso];
    const pattern = new RegExp(`(^|[^a-z])${escapeRegExp(symbol)}`);
    return [(lower) => pattern.test(lower), iso];
  });

/** The ISO 4217 code a price text names by code or symbol ("$12" → USD, "12,50 €" → EUR), or undefined. */
export function currencyCode(text: string): string | undefined {
  const code = CURRENCY_CODE.exec(text.toUpperCase());
  if (code) return code[1];
  const lower = text.toLowerCase();
  return SYMBOL_TESTS.find(([test]) => test(lower))?.[1];
}

/**
 * What marks a text as a price: an ISO 4217 code or a currency symbol as ICU
 * formats it (Node's Intl data, so every currency is covered, "NT$" and "₸"
 * alike), and the local written units ICU spells otherwise ("30,000원",
 * "131 990 тг.", "99元"). Single letters ("R", "K") are left out: too many
 * words contain them.
 */
const LOCAL_UNITS = ["元", "円", "원", "руб", "тг", "грн", "Kč", "TL", "Lei", "kr", "zł", "Rs"];
/** ICU's currency symbols, each with the codes that use it ("$" → USD, CAD, ...). */
const ICU_SYMBOLS = new Map<string, string[]>();
for (const currency of Intl.supportedValuesOf("currency")) {
  for (const currencyDisplay of ["symbol", "narrowSymbol"] as const) {
    const symbol = new Intl.NumberFormat("en", { style: "currency", currency, currencyDisplay })
      .formatToParts(1)
      .find((part) => part.type === "currency")?.value;
    if (symbol && symbol !== currency && !ICU_SYMBOLS.get(symbol)?.includes(currency))
      ICU_SYMBOLS.set(symbol, [...(ICU_SYMBOLS.get(symbol) ?? []), currency]);
  }
}
const PRICE_MARKERS = [
  ...new Set([
    ...Intl.supportedValuesOf("currency"),
    ...[...ICU_SYMBOLS.keys()].filter((symbol) => !/^\p{L}$/u.test(symbol)),
    ...LOCAL_UNITS,
  ]),
].sort((a, b) => b.length - a.length);
// Letters in a marker must not be part of a longer word ("USD" but not "USDA"); a trailing dot belongs to it ("тг.").
const PRICE_MARKER = new RegExp(`(?<![\\p{L}])(?:${PRICE_MARKERS.map(escapeRegExp).join("|")})(?![\\p{L}])\\.?`, "iu");

export interface Price {
  amount: number;
  /** The ISO 4217 code the text names, when it names one unambiguously (or "$", read as USD). */
  currency: string | undefined;
}

/**
 * A price as a shopper reads it: one number with a currency marker before or
 * after it ("CHF 19.50", "4,99 €", "30,000원~", "€ 20,-"); undefined for a
 * number without a currency or text with words in it ("ab 5 €/kg").
 */
export function readPrice(text: string): Price | undefined {
  const trimmed = text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\s*[~*]+$/, "")
    .replace(/[.,][-–]$/, "");
  const marker = PRICE_MARKER.exec(trimmed);
  if (!marker) return undefined;
  const amount = parseNumber(`${trimmed.slice(0, marker.index)} ${trimmed.slice(marker.index + marker[0].length)}`);
  return amount === undefined ? undefined : { amount, currency: uniqueCode(marker[0]) ?? currencyCode(trimmed) };
}

/** The one currency a marker stands for ("₸" → KZT, "chf" → CHF), or undefined when several share it. */
function uniqueCode(marker: string): string | undefined {
  const upper = marker.replace(/\.$/, "").toUpperCase();
  if (Intl.supportedValuesOf("currency").includes(upper)) return upper;
  const codes = ICU_SYMBOLS.get(marker.replace(/\.$/, "")) ?? [];
  return codes.length === 1 ? codes[0] : undefined;
}

const SYMBOL = String.raw`(?:[a-z]{0,2}\$|€|£|¥|₹|₩|₽|zł|kr|${CODES})`;
const WRITTEN_NUMBER = new RegExp(
  String.raw`^([+-]?)\s*(?:${SYMBOL}\s*)?([+-]?)(\d[\d.,\s\u00a0\u202f']*|[.,]\d+)\s*(?:${SYMBOL}\.?)?$`,
  "i",
);

/**
 * A number written as text: "1,299.00", "$12.50", "1.299,00 €", "1 299",
 * "12,50", "12.50 EUR", "-3". With both separators the last one is the
 * decimal mark; a lone comma is a thousands separator only before exactly
 * three digits. Text with words in it ("12 apples") is refused.
 */
export function parseNumber(text: string): number | undefined {
  const match = WRITTEN_NUMBER.exec(text.trim());
  if (!match || (match[1] && match[2])) return undefined;
  const digits = normalizeDigits(match[3]!.trim());
  if (digits === undefined) return undefined;
  const number = Number(`${match[1] || match[2]}${digits}`);
  return Number.isFinite(number) ? number : undefined;
}

function normalizeDigits(written: string): string | undefined {
  let text = written.replace(/[\s\u00a0\u202f']/g, (space, offset: number) =>
    // Spaces and apostrophes only group thousands: "1 299", "1'299".
    /^\d{3}(\D|$)/.test(written.slice(offset + 1)) ? "" : space,
  );
  if (/[\s\u00a0\u202f']/.test(text)) return undefined;
  const lastComma = text.lastIndexOf(",");
  const lastDot = text.lastIndexOf(".");
  if (lastComma >= 0 && lastDot >= 0) {
    const decimal = lastComma > lastDot ? "," : ".";
    const group = decimal === "," ? "." : ",";
    const [whole, fraction, ...rest] = text.split(decimal);
    if (rest.length > 0 || !isGrouped(whole!, group)) return undefined;
    text = `${whole!.split(group).join("")}.${fraction}`;
  } else if (lastComma >= 0) {
    const parts = text.split(",");
    if (parts.length > 2 || /^\d{3}$/.test(parts[1]!)) {
      if (!isGrouped(text, ",")) return undefined;
      text = parts.join("");
    } else text = parts.join(".");
  } else if (text.split(".").length > 2) {
    if (!isGrouped(text, ".")) return undefined;
    text = text.split(".").join("");
  }
  return /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? text : undefined;
}

/** "1,299,000" grouped by threes after a first group of one to three digits. */
function isGrouped(text: string, separator: string): boolean {
  const [head, ...groups] = text.split(separator);
  return (
    (/^\d{1,3}$/.test(head!) && groups.every((g) => /^\d{3}$/.test(g))) || (groups.length === 0 && /^\d+$/.test(head!))
  );
}

/** The first number inside a longer text ("4.8 out of 5 stars" → 4.8), or undefined when there is none. */
export function firstNumber(text: string): number | undefined {
  const match = /[+-]?\d[\d.,\u00a0\u202f]*\d|\d/.exec(text);
  return match ? parseNumber(match[0]) : undefined;
}

/** A run that reads as a phone number: digits with the usual separators, at least seven digits. */
const PHONE = /\+?\(?\d[\d\s()./-]{5,}\d/g;

/**
 * The phone numbers a text holds, as written and joined by "; "
 * ("907/274-2739 | Reserve Online" → "907/274-2739"); undefined when it
 * holds none. Labelled values often run on into the links beside them.
 */
export function phoneNumbers(text: string): string | undefined {
  const numbers = [...text.matchAll(PHONE)]
    .map(([run]) => run.trim())
    .filter((run) => run.replace(/\D/g, "").length >= 7);
  return numbers.length > 0 ? numbers.join("; ") : undefined;
}

const TRUE_WORDS = new Set([
  "true",
  "yes",
  "y",
  "1",
  "in stock",
  "instock",
  "available",
  "in stock online",
  "limitedavailability",
  "instoreonly",
  "onlineonly",
  "presale",
  "preorder",
]);
const FALSE_WORDS = new Set([
  "false",
  "no",
  "n",
  "0",
  "out of stock",
  "outofstock",
  "sold out",
  "soldout",
  "unavailable",
  "not available",
  "discontinued",
]);

/** "yes", "In stock", "https://schema.org/InStock" → true; "no", "Sold out" → false; anything else undefined. */
export function parseBoolean(text: string): boolean | undefined {
  const term = text
    .replace(/^https?:\/\/schema\.org\//i, "")
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, "")
    .replace(/\s+/g, " ");
  if (TRUE_WORDS.has(term)) return true;
  if (FALSE_WORDS.has(term)) return false;
  return undefined;
}

const MONTHS = new Map<string, number>();
[
  ["jan", "january", "januar", "janvier", "gennaio", "enero", "janeiro", "januari", "jänner"],
  ["feb", "february", "februar", "février", "fevrier", "febbraio", "febrero", "fevereiro", "februari"],
  ["mar", "march", "märz", "maerz", "mars", "marzo", "março", "maart"],
  ["apr", "april", "avril", "aprile", "abril"],
  ["may", "mai", "maggio", "mayo", "maio", "mei"],
  ["jun", "june", "juni", "juin", "giugno", "junio", "junho"],
  ["jul", "july", "juli", "juillet", "luglio", "julio", "julho"],
  ["aug", "august", "août", "aout", "agosto", "augustus"],
  ["sep", "sept", "september", "septembre", "settembre", "septiembre", "setembro"],
  ["oct", "okt", "october", "oktober", "octobre", "ottobre", "octubre", "outubro"],
  ["nov", "november", "novembre", "noviembre", "novembro"],
  ["dec", "dez", "december", "dezember", "desember", "décembre", "decembre", "dicembre", "diciembre", "dezembro"],
].forEach((names, index) => names.forEach((name) => MONTHS.set(name, index + 1)));

/**
 * A calendar date as YYYY-MM-DD from ISO 8601 ("2019-12-12T08:00:00Z" keeps
 * its own date), day-first numeric forms ("12.12.2019", "19.10.19"), and
 * month names in either order ("May 25, 2010", "25. Mai 2010"): the first
 * date the text writes. Slash dates such as "03/04/2010" are refused: the
 * page's convention is unknown (unless a number over 12 settles it).
 */
export function isoDate(text: string): string | undefined {
  const trimmed = text.trim();
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(trimmed);
  return compact ? validDate(Number(compact[1]), Number(compact[2]), Number(compact[3])) : datesIn(trimmed)[0]?.date;
}

export interface DateMention {
  /** Where the date starts in the text. */
  index: number;
  /** YYYY-MM-DD. */
  date: string;
}

const DATE_FORMS: { pattern: RegExp; read: (m: RegExpExecArray) => [number, number | undefined, number] }[] = [
  { pattern: /(?<![\d.])(\d{4})-(\d{2})-(\d{2})(?!\d)/g, read: (m) => [Number(m[1]), Number(m[2]), Number(m[3])] },
  // A two-digit year is this century's unless that would be in the future.
  {
    pattern: /(?<![\d.])(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})(?![\d.]\d)/g,
    read: (m) => [fullYear(m[3]!), Number(m[2]), Number(m[1])],
  },
  // Month and day with slashes or dashes only when one of them cannot be a month ("11-23-2010", "23/11/2010").
  {
    pattern: /(?<![\d./-])(\d{1,2})[/-](\d{1,2})[/-](\d{4})(?![\d/-])/g,
    read: (m) => unambiguous(Number(m[3]), Number(m[1]), Number(m[2])),
  },
  {
    pattern: /(?<![\p{L}])(\p{L}{3,10})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)/gu,
    read: (m) => [Number(m[3]), MONTHS.get(m[1]!.toLowerCase()), Number(m[2])],
  },
  {
    pattern: /(?<!\d)(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:de\s+)?(\p{L}{3,10})\.?,?\s+(?:de\s+)?(\d{4})(?!\d)/gu,
    read: (m) => [Number(m[3]), MONTHS.get(m[2]!.toLowerCase()), Number(m[1])],
  },
];

/** Every date the text writes, in the forms isoDate reads, in text order. */
export function datesIn(text: string): DateMention[] {
  const mentions: DateMention[] = [];
  for (const { pattern, read } of DATE_FORMS) {
    for (const match of text.matchAll(pattern)) {
      const [year, month, day] = read(match as RegExpExecArray);
      const date = month === undefined ? undefined : validDate(year, month, day);
      if (date) mentions.push({ index: match.index!, date });
    }
  }
  return mentions.sort((a, b) => a.index - b.index);
}

function unambiguous(year: number, first: number, second: number): [number, number | undefined, number] {
  if (first > 12 && second <= 12) return [year, second, first];
  if (second > 12 && first <= 12) return [year, first, second];
  return [year, undefined, 0];
}

function fullYear(digits: string): number {
  if (digits.length === 4) return Number(digits);
  const thisCentury = 2000 + Number(digits);
  return thisCentury <= new Date().getUTCFullYear() + 1 ? thisCentury : thisCentury - 100;
}

function validDate(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1000 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

/**
 * A rating moved from the page's scale to the one a field names by the top
 * of each scale (8 of 10 → 4 of 5); unchanged when the tops agree, undefined
 * when the value is off the page's scale.
 */
export function rescale(value: number, fromBest: number, to: [number, number]): number | undefined {
  if (fromBest <= 0 || value < 0 || value > fromBest) return undefined;
  if (fromBest === to[1]) return value;
  return Math.round(((value * to[1]) / fromBest) * 100) / 100;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

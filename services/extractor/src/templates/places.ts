/**
 * Where a value sits on a page, as locators write it: the span of an
 * element's text that holds the value (in any form shape.ts reads back as
 * the value), and what a reading reads back from such a text.
 */
import { LRUCache } from "lru-cache";
import { nameHints } from "../schema/field-names.js";
import { datesIn, firstNumber, parseBoolean, parseNumber } from "../schema/normalize.js";

/** Text around a value that a locator may cut off: more than this, and the value sits in running text, not a slot. */
export const MAX_AROUND = 60;

/** A number as a page writes it, with its separators. */
const WRITTEN_NUMBER = /\d[\d.,\u00a0\u202f']*\d|\d/g;

/** Where in an element's text the value is written, read for the field `name`. */
export function spanOf(text: string, value: unknown, name: string): [number, number] | undefined {
  if (typeof value === "number") {
    for (const match of text.matchAll(WRITTEN_NUMBER)) {
      const number = parseNumber(match[0]);
      if (number !== undefined && Math.abs(number - value) < 0.005) return [match.index, match.index + match[0].length];
    }
    return undefined;
  }
  if (typeof value === "boolean") return parseBoolean(text) === value ? [0, text.length] : undefined;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  if (nameHints(name).format === "iso8601") {
    // A date is read from where the page writes it to the end of the text (shape.ts reads the first date).
    const mention = datesIn(text).find((m) => m.date === value.slice(0, 10));
    if (mention) return [mention.index, text.length];
  }
  const wanted = value.replace(/\s+/g, " ").trim().toLowerCase();
  const lower = text.toLowerCase();
  const at = lower.length === text.length ? lower.indexOf(wanted) : -1;
  return at >= 0 && text.length - wanted.length <= MAX_AROUND ? [at, at + wanted.length] : undefined;
}

/** A reading without the parts it leaves empty, so that equal readings are written alike. */
export function withoutEmpty<T extends object>(reading: T): T {
  return Object.fromEntries(Object.entries(reading).filter(([, v]) => v !== undefined && v !== "")) as T;
}

/** A number's text with its decimal and thousands separators swapped: "92.284" reads 92284, "24,99" reads 24.99. */
export function swapSeparators(text: string): string {
  return text.replace(/[.,]/g, (mark) => (mark === "." ? "," : "."));
}

/** A number read from a text, as a raw text shape.ts reads back ("$14.98 (2 offers)" → "14.98"). */
export function numberText(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}

/**
 * How a text is read as a value: with "." and "," swapped in its numbers, then its first number, or what stands
 * between a prefix and a suffix.
 */
export interface TextReading {
  decimalComma?: true;
  firstNumber?: true;
  pattern?: string;
  prefix?: string;
  suffix?: string;
}

/** What a reading reads in an element's text (or own text): undefined when the text does not show it as it expects. */
export function readText(text: string, reading: TextReading): string | undefined {
  const written = reading.decimalComma ? swapSeparators(text) : text;
  const raw = reading.firstNumber
    ? numberText(firstNumber(written))
    : reading.pattern !== undefined
      ? firstMatch(written, reading.pattern)
      : cut(written, reading.prefix ?? "", reading.suffix ?? "");
  return raw === "" ? undefined : raw;
}

/**
 * A value's shape as a pattern: its runs of letters, digits and spaces as runs of any letters, digits and spaces, its
 * other characters as written ("Thu Nov 09, 2006 8:58 pm" as `\p{L}+\s+\p{L}+\s+\d+,\s+\d+…`). Only for a short
 * value with a digit (a date, a time, a code): words alone would match any words. The words around such a value vary
 * from page to page ("Posted: <date> Post subject: <title>"), its shape does not.
 */
export function valuePattern(value: unknown): string | undefined {
  if (typeof value !== "string" || !/\d/.test(value) || value.length > MAX_PATTERN_VALUE) return undefined;
  const runs = value.trim().match(/\p{L}+|\d+|\s+|[^\p{L}\d\s]/gu) ?? [];
  return runs
    .map((run) =>
      /^\p{L}/u.test(run)
        ? "\\p{L}+"
        : /^\d/.test(run)
          ? "\\d+"
          : /^\s/.test(run)
            ? "\\s+"
            : run.replace(/[\^$\\.*+?()[\]{}|/]/, "\\$&"),
    )
    .join("");
}

/** What a pattern (valuePattern's, checked by PATTERN) reads: its first match standing apart from letters and digits. */
function firstMatch(text: string, pattern: string): string | undefined {
  return compiled(`(?<![\\p{L}\\d])${pattern}(?![\\p{L}\\d])`, "u").exec(text)?.[0];
}

const MAX_PATTERN_VALUE = 40;

/**
 * The patterns valuePattern writes: runs of letters, digits or spaces, and single other characters (escaped where a
 * pattern gives them a meaning); nothing else, so a stored pattern is never more than a shape to match.
 */
export const PATTERN = /^(?:\\p\{L\}\+|\\d\+|\\s\+|\\[\^$\\.*+?()[\]{}|/]|[^\p{L}\d\s\\^$.*+?()[\]{}|/])+$/u;

/** Readings' expressions, compiled once: a template reads each with one expression on every record of every page. */
const expressions = new LRUCache<string, RegExp>({ max: 1_000 });

function compiled(source: string, flags: string): RegExp {
  const key = `${flags}/${source}`;
  let expression = expressions.get(key);
  if (!expression) {
    expression = new RegExp(source, flags);
    expressions.set(key, expression);
  }
  return expression;
}

/**
 * The text between a prefix and a suffix (their numbers may be any numbers), or undefined when the text does not have
 * them.
 */
function cut(text: string, prefix: string, suffix: string): string | undefined {
  const pattern = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\d+/g, "\\d+");
  const match = compiled(`^${pattern(prefix)}([\\s\\S]*?)${pattern(suffix)}$`, "").exec(text);
  return match?.[1]?.trim();
}

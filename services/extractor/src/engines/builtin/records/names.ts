/**
 * Whether words name a field: markup words, a label's words or the word
 * after a number ("1,145 points") against a field's names, whole or as
 * prefixes.
 */

import { rememberedByText } from "../../../remembered.js";
import { nameTokens } from "../../../schema/field-names.js";
import { singular } from "../match.js";
import { readCount } from "./counts.js";

/** A name's leading by-word ("by Ann Lee"); only unambiguous ones, as a name may begin with "Di" or "Van". */
const BY_WORDS = "by|von|par|por";

export const BY_WORD = new RegExp(`^(${BY_WORDS})\\s+(?=\\S)`, "i");

/** The same word ending a label before a name ("by", "answered by", "posted by"). */
export const BY_LABEL = new RegExp(`(^|\\s)(${BY_WORDS})$`, "i");

/** A text's name tokens, remembered: records repeat the same labels and link paths. */
export const cachedTokens = rememberedByText(nameTokens);

/** How strongly a name's words found as prefixes of the markup's words name the field ("ship" for shipping). */
export const PREFIX_MATCH = 0.85;

/** A column must read as the field's type in this share of the records that have it. */
export const MIN_FIT = 0.6;

/** 1 when some name's words are all in the markup words, 0.85 when they are there as prefixes ("ship" for shipping, "ratings" for rating), else 0. */
export function named(names: string[][], words: Set<string>): number {
  if (words.size === 0) return 0;
  let best = 0;
  for (const name of names) {
    let all = true;
    let prefixed = true;
    for (const word of name) {
      if (words.has(word)) continue;
      all = false;
      if (!hasPrefixed(word, words)) {
        prefixed = false;
        break;
      }
    }
    if (all) return 1;
    if (prefixed) best = PREFIX_MATCH;
  }
  return best;
}

function hasPrefixed(word: string, words: Set<string>): boolean {
  if (word.length < 4) return false;
  for (const other of words) if (prefixes(word, other)) return true;
  return false;
}

function prefixes(a: string, b: string): boolean {
  return a.length >= 4 && b.length >= 4 && (a.startsWith(b) || b.startsWith(a));
}

/** "1,145 points", "(299 ratings)", "Free Shipping": the text's word after its number (or any word, `anyWord`) names the field. */
export function unitNames(text: string, names: string[][], anyWord = false): boolean {
  if (!anyWord) return unitNumber(text, names) !== undefined;
  // A word that names a part starts with the part's first two letters (a plural's ending aside): a text without
  // them for some part of each name names none, and is not split into words (a list's every title is asked).
  const lower = text.toLowerCase();
  if (!names.some((name) => name.every((part) => lower.includes(part.slice(0, 2))))) return false;
  const textWords = cachedTokens(text).map(singular);
  return names.some((name) => name.every((part) => textWords.some((word) => word === part || prefixes(word, part))));
}

/** The number written before a word that names the field ("7,891,234 ratings" in "4.28 avg rating, 7,891,234 ratings"). */
export function unitNumber(text: string, names: string[][]): number | undefined {
  if (!/\d/.test(text)) return undefined;
  for (const match of text.matchAll(UNIT)) {
    const word = singular(match[3]!.toLowerCase());
    if (names.some((name) => name.length === 1 && (word === name[0] || prefixes(word, name[0]!))))
      return readCount(`${match[1]}${match[2] ?? ""}`);
  }
  return undefined;
}

/** A number and the word after it ("1.2k points"). */
const UNIT = /(\d[\d.,\u00a0]*\d|\d)\s?([kKmM]\b)?\+?\s*(\p{L}+)/gu;

export function share(texts: (string | undefined)[], test: (text: string) => boolean): number {
  const present = texts.filter((text): text is string => text !== undefined && text !== "");
  return present.length === 0 ? 0 : present.filter(test).length / present.length;
}

/** Counts as lists write them beside their nouns: points, ratings, answers, views. */
import { parseNumber } from "../../../schema/normalize.js";

/**
 * A count as written: "1,145 points", "(299 ratings)", "1.2k", "92.284" (a
 * whole number, so a lone separator before three digits groups them).
 */
export function readCount(text: string): number | undefined {
  const match = /\d[\d.,\s\u00a0]*\d|\d/.exec(text);
  if (!match) return undefined;
  const written = match[0].trim();
  const after = text.slice(match.index + match[0].length);
  const scale = /^\s?[kK]\b/.test(after) ? 1000 : /^\s?[mM]\b/.test(after) ? 1_000_000 : 1;
  if (/^\d{1,3}([.,\s\u00a0]\d{3})+$/.test(written)) return Number(written.replace(/[.,\s\u00a0]/g, "")) * scale;
  const number = parseNumber(written);
  if (number === undefined) return undefined;
  const count = Math.round(number * scale);
  // A count is a whole number: "4,7" is a rating, not a count.
  return scale === 1 && !Number.isInteger(number) ? undefined : count;
}

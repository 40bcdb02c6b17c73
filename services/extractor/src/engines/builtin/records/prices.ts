/**
 * Prices in a list's records: a price read in the field's currency, and the
 * places that hold a price other than the one to pay (the price before a
 * discount, a price per unit), told apart by what the prices are rather
 * than by the class names around them.
 */
import { type Element, isTag } from "domhandler";
import { type Column, currencyOf, isWithin, valueText } from "../../../layout/index.js";
import type { NameHints } from "../../../schema/field-names.js";
import { parseNumber } from "../../../schema/normalize.js";

/** An old price stands above the sale price in at least this share of the records showing both. */
const MOST_ABOVE = 0.8;

/** A price in the field's currency: the amount after or before a currency sign; undefined when the text names another currency. */
export function readPrice(text: string, hints: NameHints): number | undefined {
  const match = PRICE.exec(text);
  if (!match) return undefined;
  const written = match[0];
  const stated = currencyOf(written);
  if (hints.currency && stated && stated !== hints.currency) return undefined;
  if (!stated && !hints.currency && !/^\s*[\d.,\s]+\s*$/.test(text)) return undefined;
  const digits = /\d[\d.,\s\u00a0]*\d|\d/.exec(written)?.[0];
  return digits ? parseNumber(digits.trim()) : undefined;
}

const PRICE =
  /(?:[A-Z]{1,3}\s?)?(?:\p{Sc}|\b[A-Z]{3}\b)\s?\d[\d.,\s\u00a0]*\d?|\d[\d.,\s\u00a0]*\d?\s?(?:\p{Sc}|\b[A-Z]{3}\b)/u;

/**
 * Of two price places in one record, the one above the other in nearly
 * every record that has both is the price before a discount: a sale price
 * is the lower one. Only prices written alone count: a price per unit
 * ("$0.43/count") or with a condition is lower for another reason.
 */
export function aboveAnother<T extends { column: Column }>(scored: T[], hints: NameHints): T[] {
  // Places above and below one another repeat the same texts: each text is read once.
  const alone = new Map<string, number | undefined>();
  const amountOf = (text: string) => {
    if (!alone.has(text)) alone.set(text, isPriceAlone(text) ? readPrice(text, hints) : undefined);
    return alone.get(text);
  };
  const amounts = scored.map(({ column }) =>
    column.cells.map((cell) => {
      const amount = cell ? amountOf(valueText(cell)) : undefined;
      return amount !== undefined && !perUnit(cell!) ? amount : undefined;
    }),
  );
  return scored.filter((choice, i) =>
    scored.some((other, j) => {
      if (j === i || !disjointPlaces(choice.column, other.column)) return false;
      let both = 0;
      let above = 0;
      for (let record = 0; record < amounts[i]!.length; record += 1) {
        const [a, b] = [amounts[i]![record], amounts[j]![record]];
        if (a === undefined || b === undefined) continue;
        both += 1;
        if (a > b) above += 1;
      }
      // Most of its prices stand beside a lower one: a price above another in one record of many is not the old one.
      const priced = amounts[i]!.filter((amount) => amount !== undefined).length;
      return both >= 2 && both * 2 >= priced && above >= MOST_ABOVE * both;
    }),
  );
}

/**
 * A price written alone with its currency ("$18.99", "CDN$ 5"): a part of one
 * ("19", ".99") or a price with a condition ("€2.66 with Subscribe & Save") is
 * not compared.
 */
function isPriceAlone(text: string): boolean {
  return currencyOf(text) !== undefined && text.replace(PRICE, "").replace(/[\s\p{P}]/gu, "") === "";
}

const PRICES = new RegExp(PRICE.source, "gu");
const PER_UNIT = /\d\s*\)?\s*(\/|\bper\b)/i;

/** Each cell's reading by perUnit: both the old price and the price per unit ask it of every cell of a price place. */
const perUnitCells = new WeakMap<Element, boolean>();

/** Whether a price is written per unit, in its own text or in the short text around it ("(€8.24/kg)"). */
function perUnit(cell: Element): boolean {
  let read = perUnitCells.get(cell);
  if (read === undefined) {
    read = readPerUnit(cell);
    perUnitCells.set(cell, read);
  }
  return read;
}

function readPerUnit(cell: Element): boolean {
  const text = valueText(cell);
  let node: Element | null = cell;
  for (let depth = 0; node && isTag(node) && depth < 3; depth += 1, node = node.parent as Element | null) {
    const around = valueText(node);
    // The text around this price alone, not one that holds another price beside it.
    if (around.length > text.length + 12 || (around.match(PRICES)?.length ?? 0) > 1) break;
    if (PER_UNIT.test(around)) return true;
  }
  return false;
}

/** Places whose prices are mostly per unit ("(€8.24/kg)"): not the price of the item. */
export function perUnitPlaces<T extends { column: Column }>(scored: T[]): T[] {
  return scored.filter(({ column }) => {
    const cells = column.cells.filter((cell): cell is Element => cell !== undefined);
    return cells.filter(perUnit).length * 2 > cells.length;
  });
}

/** Neither place lies inside the other. */
function disjointPlaces(a: Column, b: Column): boolean {
  return !isWithin(a, b) && !isWithin(b, a);
}

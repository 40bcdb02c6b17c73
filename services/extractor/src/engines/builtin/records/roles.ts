/**
 * The roles of places in a list's records, by their structure and their
 * values rather than their names: the main link (the title's), a record's
 * first line, a heading, prose, a sequence of ranks.
 */
import { type Element, isTag, isText } from "domhandler";
import { type Column, type Columns, isWithin, valueText } from "../../../layout/index.js";
import { NOT_TEXT } from "../../../page/elements.js";
import { firstNumber } from "../../../schema/normalize.js";
import { MIN_FIT, share } from "./names.js";

/** Elements searched for a record's main link. */
export const MAX_LINK_SEARCH = 400;

/** A description is at least this long on average, in characters and in words; found in this share of the records. */
const MIN_TEXT_CHARS = 20;
const MIN_TEXT_WORDS = 3;
const MOST = 0.25;

/** Numbers that count up one by one from record to record: 1, 2, 3 (ranks). */
export function isSequence(texts: (string | undefined)[]): boolean {
  const numbers = texts.map((text) => (text ? firstNumber(text) : undefined));
  let steps = 0;
  for (let i = 1; i < numbers.length; i += 1)
    if (numbers[i] !== undefined && numbers[i] === numbers[i - 1]! + 1) steps += 1;
  return numbers.length >= 2 && steps >= 0.8 * (numbers.length - 1);
}

/**
 * A place that may hold a description: prose (words, on average a few of
 * them and not an address), in most records, not the title's link or a
 * place holding it or inside it. The longest of them is weighed the most.
 */
export function isProse(column: Column, mainLinks: Column | undefined, texts: (string | undefined)[]): boolean {
  if (column.depth === 0 || column.count < MOST * column.cells.length) return false;
  if (mainLinks && (mainLinks === column || isWithin(mainLinks, column) || isWithin(column, mainLinks))) return false;
  const present = texts.filter((text): text is string => text !== undefined && text !== "");
  if (present.length === 0 || averageLength(present) < MIN_TEXT_CHARS) return false;
  const words = present.reduce((sum, text) => sum + (text.match(/\p{L}{2,}/gu)?.length ?? 0), 0) / present.length;
  return words >= MIN_TEXT_WORDS && share(present, (text) => !ADDRESS.test(text)) >= MIN_FIT;
}

/** A record's own title or text differs from record to record; a label repeated on every one ("View recipe") is the layout's. */
export function varies(texts: (string | undefined)[]): boolean {
  const present = texts.filter((text): text is string => text !== undefined && text !== "");
  return present.length < 3 || new Set(present).size * 2 > present.length;
}

export function averageLength(texts: (string | undefined)[]): number {
  const present = texts.filter((t): t is string => t !== undefined);
  return present.length === 0 ? 0 : present.reduce((sum, text) => sum + text.length, 0) / present.length;
}

/** The inner place that holds most of a place's text (the paragraph of a caption that also holds the address line). */
export function core(column: Column, columns: Columns, textsOf: (column: Column) => (string | undefined)[]): Column {
  let best = column;
  for (;;) {
    const outer = best;
    const length = averageLength(textsOf(outer));
    const inner = columns.columns.find(
      (other) =>
        other.parent === outer && other.count * 2 >= outer.count && averageLength(textsOf(other)) >= 0.7 * length,
    );
    if (!inner) return best;
    best = inner;
  }
}

/** The place of each record's main link (its title's link), where most records have it. */
export function mainLinkColumn(records: Element[][], columns: Columns): Column | undefined {
  // The places of links, each with whether it is in a heading (its own or a place above it is one).
  const links = columns.columns
    .filter((column) => column.cells.some((cell) => cell?.tagName === "a") && !sharedTarget(column))
    .map((column) => ({ column, heading: inHeading(column) }));
  const counts = new Map<Column, number>();
  records.forEach((record, index) => {
    const recordText = record.reduce((sum, element) => sum + valueText(element).length, 0);
    let best: Column | undefined;
    let bestScore = 0;
    for (const { column, heading } of links) {
      const link = column.cells[index];
      if (link?.tagName !== "a" || !isNavigable(link.attribs.href)) continue;
      const text = valueText(link);
      const letters = text.replace(/[^\p{L}]/gu, "").length;
      // A link around the whole record (a card that is one link) only where there is no other.
      const whole = recordText > 0 && text.length > 0.8 * recordText && record.length === 1 && hasSeveralTexts(link);
      const score = letters === 0 ? 0 : Math.min(letters, 150) + (heading ? 100 : 0) - (whole ? 1000 : 0) + 2000;
      if (score > bestScore) [best, bestScore] = [column, score];
    }
    if (best) counts.set(best, (counts.get(best) ?? 0) + 1);
  });
  const [best, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
  return best && count * 2 >= records.length ? best : undefined;
}

/**
 * Whether a place's links lead to the same page from most records (every card's "Learn more" to the site's about page,
 * a category link several records share): a page that is no record's own, so the place is no record's main link.
 */
function sharedTarget(column: Column): boolean {
  const targets = column.cells.flatMap((cell) =>
    cell?.tagName === "a" && isNavigable(cell.attribs.href) ? [cell.attribs.href!.trim()] : [],
  );
  return targets.length >= 2 && new Set(targets).size * 2 <= targets.length;
}

/**
 * Whether a place's elements hold most of their records' text, of which the
 * record's first line is only a part, in most records: the record itself
 * (a card that is one link), not its title.
 */
export function isWholeRecord(column: Column, firstTexts: Column | undefined, records: Element[][]): boolean {
  if (!firstTexts || !isWithin(firstTexts, column)) return false;
  let whole = 0;
  records.forEach((record, index) => {
    const [cell, first] = [column.cells[index], firstTexts.cells[index]];
    if (!cell || !first) return;
    const recordText = record.reduce((sum, element) => sum + valueText(element).length, 0);
    const text = valueText(cell).length;
    if (text > 0.8 * recordText && valueText(first).length < 0.8 * text) whole += 1;
  });
  return whole * 2 > records.length;
}

/**
 * The place of each record's first text with letters in reading order (its
 * first line), where most records have it at the same place: a title comes
 * first in a record, before what is said of it.
 */
export function firstTextColumn(records: Element[][], columns: Columns): Column | undefined {
  const counts = new Map<Column, number>();
  for (const record of records) {
    const first = firstLettered(record);
    const column = first && columns.placeOf.get(first);
    if (column) counts.set(column, (counts.get(column) ?? 0) + 1);
  }
  const [best, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
  return best && count * 2 >= records.length ? best : undefined;
}

/** The first element in reading order whose own text has letters, among the shown elements of a record. */
function firstLettered(record: Element[]): Element | undefined {
  let read = 0;
  const visit = (element: Element): Element | undefined => {
    read += 1;
    if (read > MAX_LINK_SEARCH || NOT_TEXT.has(element.tagName) || valueText(element) === "") return undefined;
    for (const child of element.children) {
      if (isText(child) && /\p{L}/u.test(child.data)) return element;
      if (isTag(child)) {
        const found = visit(child);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const element of record) {
    const found = visit(element);
    if (found) return found;
  }
  return undefined;
}

/** Whether a place is a heading, inside one or around one (a link holding a heading), in the record where it first is. */
function inHeading(column: Column): boolean {
  for (let node: Column | undefined = column; node; node = node.parent) {
    const cell = node.cells.find((c) => c !== undefined);
    if (cell && HEADING.test(cell.tagName)) return true;
  }
  const cell = column.cells.find((c) => c !== undefined);
  return cell !== undefined && holdsHeading(cell);
}

/** Heading elements. */
const HEADING = /^h[1-6]$/;

/** Whether an element's only shown child (down a few levels) is a heading. */
function holdsHeading(element: Element): boolean {
  let node = element;
  for (let depth = 0; depth < 3; depth += 1) {
    const shown = node.children.filter((child): child is Element => isTag(child) && valueText(child) !== "");
    if (shown.length !== 1) return false;
    node = shown[0]!;
    if (HEADING.test(node.tagName)) return true;
  }
  return false;
}

function hasSeveralTexts(element: Element): boolean {
  return (
    element.children.filter(
      (child) => (isTag(child) && valueText(child) !== "") || (isText(child) && child.data.trim() !== ""),
    ).length >= 2
  );
}

export function isNavigable(href: string | undefined): boolean {
  return href !== undefined && href.trim() !== "" && !/^(#|javascript:)/i.test(href.trim());
}

/** A text that is an address written out (a search result's green URL line), not words. */
export const ADDRESS = /^(https?:\/\/\S+|www\.\S+|[\w-]+(\.[\w-]+)+(\/\S*)?)$/i;

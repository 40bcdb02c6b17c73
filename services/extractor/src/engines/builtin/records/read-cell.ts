/**
 * A record's value for a field, read from its cell in the field's column: a
 * link's address, a price, a count, a rating, a date, a name without its
 * label.
 */

import { type Element, isTag, isText } from "domhandler";
import type { Column, Columns } from "../../../layout/index.js";
import { valueText } from "../../../layout/index.js";
import { classNumber } from "../../../page/class-number.js";
import { linesOf } from "../../../page/elements.js";
import { absoluteUrl } from "../../../page/page.js";
import type { NameHints } from "../../../schema/field-names.js";
import { datesIn, firstNumber, isoDate, parseBoolean, parseNumber } from "../../../schema/normalize.js";
import { withoutOwnLabel } from "../match.js";
import { readCount } from "./counts.js";
import type { ItemField } from "./field-kinds.js";
import { BY_WORD, unitNumber } from "./names.js";
import { readPrice } from "./prices.js";
import { ADDRESS, isNavigable } from "./roles.js";

/** A field's column, with the places that stand in for it on records without it, and how sure the choice is. */
export interface Chosen {
  column: Column;
  score: number;
  /** For a list field, the path whose elements are its items. */
  list?: string;
  alternates: Column[];
}

/** A part set apart from the one before it: after a bullet, a bar, a dash, or in brackets. */
const ASIDE = /^[•·|–—([-]/;

/** A date written as text is short. */
const MAX_DATE_CHARS = 60;

export interface Context {
  records: Element[][];
  columns: Columns;
  baseUrl: URL | undefined;
  /**
   * Each field's reading of each cell, once: choosing the columns reads a cell for its column's fit, against other
   * places and for its value, and a price or a rating is a few patterns each time.
   */
  reads: Map<ItemField, Map<Element, unknown>>;
}

/** The context to read a list's records in. */
export function readingContext(records: Element[][], columns: Columns, baseUrl: URL | undefined): Context {
  return { records, columns, baseUrl, reads: new Map() };
}

/** The share of the column's present cells that read as the field's type. */
export function fitOf(field: ItemField, column: Column, texts: (string | undefined)[], context: Context): number {
  let present = 0;
  let fitting = 0;
  column.cells.forEach((cell, index) => {
    if (!cell) return;
    const text = texts[index] ?? "";
    if (text === "" && field.kind !== "url" && !(field.kind === "rating" || field.kind === "number")) return;
    present += 1;
    if (readCellOnce(field, cell, text, context) !== undefined) fitting += 1;
  });
  return present === 0 ? 0 : fitting / present;
}

/** A record's value for a field, or undefined where it has none. */
export function readField(
  field: ItemField,
  index: number,
  choice: { column: Column; list?: string; alternates?: Column[] } | undefined,
  context: Context,
  textsOf?: (column: Column) => (string | undefined)[],
): unknown {
  if (!choice) return undefined;
  if (field.kind === "list") {
    const elements = (choice.list ? context.columns.lists.get(choice.list)?.[index] : undefined) ?? [];
    const texts = elements.map(valueText).filter((text) => text !== "");
    return texts.length > 0 ? texts : undefined;
  }
  const column = [choice.column, ...(choice.alternates ?? [])].find((place) => place.cells[index] !== undefined);
  const cell = column?.cells[index];
  if (!column || !cell) return undefined;
  const text = textsOf ? (textsOf(column)[index] ?? "") : valueText(cell);
  const value = readCellOnce(field, cell, text, context);
  // A date as the page writes it, where the column is one of dates: "Just posted" beside "Posted 3 days ago".
  if (
    value === undefined &&
    field.kind === "date" &&
    field.hints.format !== "iso8601" &&
    text.length > 0 &&
    text.length <= MAX_DATE_CHARS
  )
    return text;
  return value;
}

/** The element a record's value for a field is read from. */
export function cellOf(choice: Chosen, index: number): Element | undefined {
  return [choice.column, ...choice.alternates].find((place) => place.cells[index] !== undefined)?.cells[index];
}

/** readCell, remembered: the text is the cell's value text wherever it is read from. */
function readCellOnce(field: ItemField, cell: Element, text: string, context: Context): unknown {
  let read = context.reads.get(field);
  if (!read) {
    read = new Map();
    context.reads.set(field, read);
  }
  if (read.has(cell)) return read.get(cell);
  const value = readCell(field, cell, text, context);
  read.set(cell, value);
  return value;
}

function readCell(field: ItemField, cell: Element, text: string, context: Context): unknown {
  switch (field.kind) {
    case "url": {
      const link = cell.tagName === "a" ? cell : (closestLink(cell) ?? firstLink(cell));
      return absoluteUrl(link?.attribs.href, context.baseUrl) ?? (/^https?:\/\/\S+$/.test(text) ? text : undefined);
    }
    case "price":
      return readPrice(text, field.hints);
    case "count":
      return unitNumber(text, field.names) ?? readCount(text);
    case "rank":
      return text ? firstNumber(text) : undefined;
    case "rating":
      return readRating(cell, text, field.hints);
    case "number":
      return text ? (parseNumber(text) ?? (text.length <= 30 ? firstNumber(text) : undefined)) : undefined;
    case "date": {
      const when = dateText(cell, text);
      return field.hints.format === "iso8601" ? (when ? isoDate(when) : undefined) : when;
    }
    case "boolean":
      return text ? parseBoolean(text) : undefined;
    case "title":
      return text && /\p{L}/u.test(text) && !/^(https?:\/\/|www\.)\S+$/i.test(text) ? text : undefined;
    case "text":
      // A description is words, not an address written out (a search result's green URL line).
      return text && /\p{L}/u.test(text) && !ADDRESS.test(text) ? text : undefined;
    case "string": {
      const value = firstPart(cell) ?? text;
      if (!value) return undefined;
      // "Company: Acme" where the column is the company's: the label goes.
      return pathName(withoutOwnLabel(value, field.hints).replace(BY_WORD, "")) || undefined;
    }
    default:
      return undefined;
  }
}

/** A link's text written as a path names its last part ("/c/gardening" → "gardening"). */
function pathName(text: string): string {
  const match = /^\/(?:[\p{L}\d_-]+\/)+([\p{L}\d_.-]+)\/?$/u.exec(text);
  return match ? match[1]! : text;
}

/**
 * The first of an element's parts when its text is made of several
 * elements and none of its own (a name followed by a job title): the
 * first part is what a short field asks for.
 */
function firstPart(cell: Element): string | undefined {
  let node = cell;
  for (let depth = 0; depth < 4; depth += 1) {
    if (node.children.some((child) => isText(child) && child.data.trim() !== ""))
      return depth === 0 ? undefined : valueText(node);
    const parts = node.children.filter((child): child is Element => isTag(child) && valueText(child) !== "");
    if (parts.length === 0) return undefined;
    // A name and what is said of it ("Jed Guinto", "• Aerospace Engineer"); parts that only follow on (a street, a city) are one value.
    if (parts.length >= 2)
      return parts.slice(1).some((part) => ASIDE.test(valueText(part))) ? valueText(parts[0]!) : undefined;
    node = parts[0]!;
  }
  return undefined;
}

/** A rating from the element's text or its labelling attributes ("4,7 von 5 Sternen", aria-label, data-rating), on a scale up to 10. */
function readRating(cell: Element, text: string, hints: NameHints): number | undefined {
  const top = hints.scale?.[1] ?? 10;
  const { attribs } = cell;
  const read = ratingIn(text, top) ?? ratingIn(attribs["aria-label"], top) ?? ratingIn(attribs.title, top);
  if (read !== undefined) return read;
  // Data attributes last, and only looked through when the text and labels hold no rating: a list reads every cell.
  for (const key in attribs) {
    if (!key.startsWith("data-") || !/rat|star|score/.test(key)) continue;
    const data = ratingIn(attribs[key], top);
    if (data !== undefined) return data;
  }
  const classed = classNumber(cell);
  return classed !== undefined && classed <= top ? classed : undefined;
}

/** A rating a short text writes, up to `top`. */
function ratingIn(written: string | undefined, top: number): number | undefined {
  if (!written) return undefined;
  const number = written.length <= 40 ? firstNumber(written) : undefined;
  return number !== undefined && number >= 0 && number <= top ? number : undefined;
}

/** A date as the page writes it: a <time> element's text or datetime, or a text with a date or a year in it. */
function dateText(cell: Element, text: string): string | undefined {
  const time = cell.tagName === "time" ? cell : undefined;
  if (time?.attribs.datetime && !/\p{L}{3}/u.test(text)) return time.attribs.datetime;
  const dated = (line: string) => datesIn(line).length > 0 || /\b(1[89]|20)\d{2}\b/.test(line) || /\bago\b/i.test(line);
  // A date and what is said beside it on a line of its own (the last post's time, then who wrote it) are two values:
  // the date is its line.
  const lines = linesOf(cell);
  const line = lines.length > 1 ? lines.find(dated) : undefined;
  if (line && line.length <= MAX_DATE_CHARS) return line;
  if (!text || text.length > MAX_DATE_CHARS) return undefined;
  return dated(text) ? text : undefined;
}

export function closestLink(element: Element): Element | undefined {
  for (let node: Element | null = element; node && isTag(node); node = node.parent as Element | null) {
    if (node.tagName === "a" && node.attribs.href) return node;
  }
  return undefined;
}

function firstLink(element: Element): Element | undefined {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.tagName === "a" && isNavigable(child.attribs.href)) return child;
    const inner = firstLink(child);
    if (inner) return inner;
  }
  return undefined;
}

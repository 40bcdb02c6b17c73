/**
 * The fields of a list's records, by the column principle: each item field
 * is answered by one column (the same relative place in every record), so
 * that records agree on where a value comes from. A column answers a field
 * by what the page says about it (the words its markup names it by, the
 * words of its ancestors inside the record, of an icon before it, of its
 * labelling attributes, the unit written after its number, "1,145 points")
 * or by the role of its place (a record's main link holds its title and its
 * address, its longest text its description, numbers 1, 2, 3 its rank), and
 * only where its values read as the field's type in most records. Each
 * column answers one field; a record without an element there answers null.
 */

import { type Column, isWithin, valueText } from "../../../layout/index.js";
import { classNumber } from "../../../page/class-number.js";
import { type ColumnWords, readWords } from "./column-words.js";
import { evidenceFor, isNamed, isOldPrice, listColumn, type Roles } from "./evidence.js";
import { type ItemField, NUMBER_KINDS, READ_WITHOUT_TEXT } from "./field-kinds.js";
import { MIN_FIT, named } from "./names.js";
import { aboveAnother, perUnitPlaces } from "./prices.js";
import { type Chosen, type Context, fitOf, readField } from "./read-cell.js";
import { averageLength, core, firstTextColumn, isWholeRecord, mainLinkColumn, varies } from "./roles.js";

/** Below this a column's evidence, fit and presence together are too weak to answer a field. */
const MIN_SCORE = 0.35;

/** An old price is a column to avoid for a price. */
const OLD_PRICE = 0.3;

/** What a list's records are read with: the columns chosen for the fields and each record's main link. */
export interface Assignment {
  /** The column each field is read from (ad fields and unanswered fields have none). */
  columns: Map<string, Chosen>;
  /** How well the records fill the fields: the share of (record, field) pairs answered, ad fields aside. */
  fill: number;
  /** Whether the records answer enough fields: two (or every one, of fewer) in most records. */
  enough: boolean;
  /** Each counted field's value in each record (undefined where it has none), as read for the fill. */
  values: Map<string, unknown[]>;
}

/** Chooses a column for each field, each column answering one field at most. */
export function assignColumns(fields: ItemField[], context: Context): Assignment {
  const { records, columns } = context;
  const n = records.length;
  const words = new Map<Column, ColumnWords>();
  const wordsOf = (column: Column): ColumnWords => {
    let found = words.get(column);
    if (!found) {
      // The words of the places above it inside the record, up to the record's root and not including it: the root's name the record.
      const parent = column.parent && column.parent.depth > 0 ? column.parent : undefined;
      const above = parent ? wordsOf(parent) : undefined;
      found = readWords(column, above ? new Set([...above.markup, ...above.ancestors]) : new Set());
      words.set(column, found);
    }
    return found;
  };
  const texts = new Map<Column, (string | undefined)[]>();
  const textsOf = (column: Column) => {
    let found = texts.get(column);
    if (!found) {
      found = column.cells.map((cell) => (cell ? valueText(cell) : undefined));
      texts.set(column, found);
    }
    return found;
  };
  const mainLinks = mainLinkColumn(records, columns);
  const firstTexts = firstTextColumn(records, columns);
  const roles: Roles = {
    mainLinks,
    wholeLink: mainLinks !== undefined && isWholeRecord(mainLinks, firstTexts, records),
    firstTexts,
    headings: columns.columns.filter((column) => column.cells.some((cell) => cell && /^h[1-6]$/.test(cell.tagName))),
    columns,
    n,
  };

  const headed = headedBy(fields, wordsOf);

  type Choice = { field: ItemField; column: Column; score: number; list?: string };
  const choices: Choice[] = [];
  for (const field of fields) {
    if (field.kind === "ad") continue;
    if (field.kind === "list") {
      const list = listColumn(field, columns, wordsOf);
      if (list) choices.push({ field, ...list });
      continue;
    }
    const scored: Choice[] = [];
    for (const column of columns.columns) {
      if (column.count === 0 || (column.holdsRecords && field.kind !== "url") || !hasContent(column, field, textsOf))
        continue;
      // A field read from a link's address shares its place with the field its text answers (a title and its link);
      // a place whose own markup names the field in the field's own words answers it under any label.
      const header = headed(column);
      if (
        field.kind !== "url" &&
        header &&
        !header.includes(field) &&
        named(field.names.slice(0, 1), wordsOf(column).own) === 0
      )
        continue;
      const evidence = evidenceFor(field, column, wordsOf, textsOf, roles);
      if (evidence <= 0) continue;
      const fit = fitOf(field, column, textsOf(column), context);
      if (fit < MIN_FIT || ((field.kind === "title" || field.kind === "text") && !varies(textsOf(column)))) continue;
      const oldPrice = field.kind === "price" && isOldPrice(column, wordsOf) ? OLD_PRICE : 1;
      // A place counts by the records that show something there: an empty element on most records is a rare value.
      const shown = READ_WITHOUT_TEXT.has(field.kind) ? column.count : textsOf(column).filter((text) => text).length;
      const score = evidence * fit * oldPrice * (0.6 + (0.4 * Math.max(shown, 1)) / n);
      if (score >= MIN_SCORE) scored.push({ field, column, score });
    }
    if (field.kind === "price")
      for (const choice of [...aboveAnother(scored, field.hints), ...perUnitPlaces(scored)]) choice.score *= OLD_PRICE;
    // Of the places that may hold a description, the one with the longest texts, down to the part that holds most of it.
    if (field.kind === "text") {
      for (const choice of scored) choice.column = core(choice.column, columns, textsOf);
      const lengths = new Map(scored.map(({ column }) => [column, averageLength(textsOf(column))]));
      const longest = Math.max(0, ...lengths.values());
      for (const choice of scored) choice.score *= 0.5 + (0.5 * lengths.get(choice.column)!) / Math.max(longest, 1);
    }
    const sameValues = (inner: Column, outer: Column) =>
      NUMBER_KINDS.has(field.kind) && readsAlike(field, inner, outer, context, textsOf);
    choices.push(...preferInner(scored, field, mainLinks, sameValues));
  }
  choices.sort((a, b) => b.score - a.score);
  const chosen = new Map<string, Chosen>();
  const used: Column[] = [];
  const free = (column: Column) =>
    !used.some((other) => other === column || isWithin(other, column) || isWithin(column, other));
  const sharesNumbers = (field: ItemField, column: Column): boolean => {
    if (!NUMBER_KINDS.has(field.kind)) return false;
    const sharing = [...chosen].filter(([, other]) => other.column === column);
    if (sharing.length === 0 || !used.includes(column)) return false;
    return sharing.every(([name]) => {
      const other = fields.find((f) => f.name === name)!;
      if (!NUMBER_KINDS.has(other.kind)) return false;
      let both = 0;
      let differ = 0;
      for (let i = 0; i < n; i += 1) {
        const [a, b] = [
          readField(field, i, { column }, context, textsOf),
          readField(other, i, { column }, context, textsOf),
        ];
        if (a === undefined || b === undefined) continue;
        both += 1;
        if (a !== b) differ += 1;
      }
      return both > 0 && differ >= MOST_DIFFER * both;
    });
  };
  for (const choice of choices) {
    const primary = chosen.get(choice.field.name);
    if (primary) {
      // The same field named in another place on the records that lack the first one (a price inside an "offers" line).
      const places = [primary.column, ...primary.alternates];
      if (
        choice.field.kind === "list" ||
        choice.field.kind === "url" ||
        !isNamed(choice.field, choice.column, wordsOf, textsOf)
      )
        continue;
      if (
        choice.score < ALTERNATE * primary.score ||
        !places.every((place) => disjoint(place, choice.column)) ||
        !free(choice.column)
      )
        continue;
      primary.alternates.push(choice.column);
      used.push(choice.column);
      continue;
    }
    // A field read from an element's address shares it with the field read from its text (a title and its link),
    // and numbers read from one text share it where they read different numbers ("4.3 avg rating, 7,891 ratings").
    if (choice.field.kind !== "url") {
      if (!free(choice.column) && !sharesNumbers(choice.field, choice.column)) continue;
      used.push(choice.column);
    }
    chosen.set(choice.field.name, { column: choice.column, score: choice.score, list: choice.list, alternates: [] });
  }
  const counted = fields.filter((field) => field.kind !== "ad" && field.kind !== "boolean");
  let answered = 0;
  let held = 0;
  const values = new Map<string, unknown[]>();
  for (const field of counted) {
    const choice = chosen.get(field.name);
    if (!choice) continue;
    const read = Array.from({ length: n }, (_, i) => readField(field, i, choice, context, textsOf));
    values.set(field.name, read);
    const inField = read.filter((value) => value !== undefined).length;
    answered += inField;
    if (inField * 2 >= n) held += 1;
  }
  // A list of titles alone (a "related" box of headings) is not the answer to an item of several fields.
  const enough = held >= Math.min(2, counted.length);
  return { columns: chosen, fill: counted.length > 0 ? answered / (counted.length * n) : 0, enough, values };
}

/**
 * The item's fields the label over or before a place names (a table's column header, "Author:"), where one names
 * some: the label a reader sees says what the place holds, whatever its markup is called (the author's link in a
 * `class="name"` under "Author" is no title). The nearest label up the place's ancestors inside the record counts.
 * A header that is the list's own name ("Books" over a cell of title, author and rating) names the record, not one
 * field, and restricts nothing.
 */
function headedBy(
  fields: ItemField[],
  wordsOf: (column: Column) => ColumnWords,
): (column: Column) => ItemField[] | undefined {
  const found = new Map<Column, ItemField[] | undefined>();
  const namedBy = (column: Column): ItemField[] | undefined => {
    if (found.has(column)) return found.get(column);
    const { label } = wordsOf(column);
    const naming = fields.filter((field) => named(field.names, label) > 0);
    const answer =
      naming.length > 0 ? naming : column.parent && column.parent.depth > 0 ? namedBy(column.parent) : undefined;
    found.set(column, answer);
    return answer;
  };
  return namedBy;
}

/** Whether a place shows anything a field could read: text, a labelling attribute (a rating's), a link (an address). */
function hasContent(column: Column, field: ItemField, textsOf: (column: Column) => (string | undefined)[]): boolean {
  // Numbers are written with digits.
  const digits = NUMBER_KINDS.has(field.kind);
  if (textsOf(column).some((text) => text !== undefined && text !== "" && (!digits || /\d/.test(text)))) return true;
  if (field.kind === "url") return column.cells.some((cell) => cell?.tagName === "a");
  if (field.kind === "rating" || field.kind === "number")
    return column.cells.some(
      (cell) =>
        cell !== undefined &&
        (Object.keys(cell.attribs).some(
          (name) => name === "aria-label" || name === "title" || name.startsWith("data-"),
        ) ||
          (field.kind === "rating" && classNumber(cell) !== undefined)),
    );
  return false;
}

/**
 * Where a column and its inner columns both answer a field, the inner one
 * is more exact ("author" inside "post-author"); of those nearly as sure,
 * the surest, then the deepest. A title's wrapper ("div.title" around the
 * heading's link and a "translate" link) gives its strength to the record's
 * main link inside it.
 */
function preferInner<T extends { column: Column; score: number }>(
  scored: T[],
  field: ItemField,
  mainLinks: Column | undefined,
  sameValues: (inner: Column, outer: Column) => boolean,
): T[] {
  return scored.map((choice) => {
    if (field.kind === "title" && mainLinks && choice.column !== mainLinks && isWithin(mainLinks, choice.column)) {
      const main = scored.find((other) => other.column === mainLinks);
      if (main) return { ...main, score: Math.max(main.score, choice.score) };
    }
    let best = choice;
    for (;;) {
      const outer = best;
      const inner = scored.filter(
        (other) =>
          other !== outer &&
          isWithin(other.column, outer.column) &&
          (other.score >= INNER * outer.score || sameValues(other.column, outer.column)),
      );
      if (inner.length === 0) break;
      best = inner.reduce((a, b) =>
        b.score > a.score || (b.score === a.score && b.column.depth > a.column.depth) ? b : a,
      );
    }
    return best;
  });
}

/**
 * Whether an inner place reads the same number as the outer one, never
 * another, in nearly every record where the outer one reads one: the
 * number's own element, more exact than a text that also holds other
 * numbers ("4.6 out of 5 stars 132,223").
 */
function readsAlike(
  field: ItemField,
  inner: Column,
  outer: Column,
  context: Context,
  textsOf: (column: Column) => (string | undefined)[],
): boolean {
  let read = 0;
  let both = 0;
  let shorter = 0;
  for (let i = 0; i < context.records.length; i += 1) {
    const b = readField(field, i, { column: outer }, context, textsOf);
    if (b === undefined) continue;
    read += 1;
    const a = readField(field, i, { column: inner }, context, textsOf);
    if (a === undefined) continue;
    if (a !== b) return false;
    both += 1;
    if ((textsOf(inner)[i] ?? "").length < (textsOf(outer)[i] ?? "").length) shorter += 1;
  }
  // Only where the inner text is a part of the outer one: the same text one level down is no more exact.
  return both > 0 && both >= NEARLY_ALL * read && shorter * 2 > both;
}

/** An inner number's place must read in this share of the records where its outer place reads. */
const NEARLY_ALL = 0.9;
/** Two number fields may share a text where they read different numbers in this share of its records. */
const MOST_DIFFER = 0.8;

/** An inner place this nearly as sure as the outer one is preferred. */
const INNER = 0.8;

/** A place that stands in for a field's column on the records without it is this nearly as sure. */
const ALTERNATE = 0.7;

/** No record has both places. */
function disjoint(a: Column, b: Column): boolean {
  return a.cells.every((cell, index) => cell === undefined || b.cells[index] === undefined);
}

/**
 * How strongly a page says that a column answers a field: its names (markup,
 * labels, icons, units), the role of its place, or its values' type alone,
 * each worth a named weight.
 */
import { type Element, isTag } from "domhandler";
import type { Column, Columns } from "../../../layout/index.js";
import { currencyOf } from "../../../layout/index.js";
import { datesIn, parseBoolean } from "../../../schema/normalize.js";
import type { ColumnWords } from "./column-words.js";
import { type ItemField, namesPrice } from "./field-kinds.js";
import { MIN_FIT, named, PREFIX_MATCH, share, unitNames } from "./names.js";
import { isProse, isSequence } from "./roles.js";

/** Words of an old price beside the current one ("was $18.99", a struck-through list price). */
const OLD_PRICE_WORDS = new Set([
  "was",
  "old",
  "strike",
  "strikethrough",
  "before",
  "regular",
  "list",
  "original",
  "rrp",
  "msrp",
  "previous",
  "compare",
  "crossed",
  "del",
]);

/** How strongly each kind of evidence says that a column answers a field. */
const EVIDENCE = {
  own: 1,
  unit: 1,
  ownPrefix: PREFIX_MATCH,
  ancestor: 0.8,
  icon: 0.8,
  // A label a reader sees before the value ("Location:") or a table's header over it.
  label: 0.9,
  head: 0.7,
  valueWord: 0.7,
  mainLink: 0.75,
  heading: 0.7,
  // A record's first line of text is its title where nothing else says which is (a card that is one link).
  firstText: 0.6,
  longest: 0.6,
  sequence: 0.8,
  typeOnly: 0.55,
  href: 0.5,
};

export interface Roles {
  mainLinks: Column | undefined;
  /** Whether the main link wraps the whole record (a card that is one link): its text is not a title. */
  wholeLink: boolean;
  firstTexts: Column | undefined;
  headings: Column[];
  columns: Columns;
  n: number;
}

/** How strongly the page says that the column answers the field; 0 when it says nothing. */
export function evidenceFor(
  field: ItemField,
  column: Column,
  wordsOf: (column: Column) => ColumnWords,
  textsOf: (column: Column) => (string | undefined)[],
  roles: Roles,
): number {
  const words = wordsOf(column);
  let best = Math.max(
    named(field.names, words.own) * EVIDENCE.own,
    named(field.names, words.ancestors) * EVIDENCE.ancestor,
    named(field.names, words.icon) * EVIDENCE.icon,
    named(field.names, words.label) * EVIDENCE.label,
    named(field.heads, words.own) * EVIDENCE.head,
    named(field.heads, words.ancestors) * EVIDENCE.head * EVIDENCE.ancestor,
  );
  const texts = textsOf(column);
  switch (field.kind) {
    case "title":
      if (column === roles.mainLinks && !roles.wholeLink) best = Math.max(best, EVIDENCE.mainLink);
      if (column === roles.firstTexts) best = Math.max(best, EVIDENCE.firstText);
      if (roles.headings.includes(column)) best = Math.max(best, EVIDENCE.heading);
      // A table column headed by the list's own name ("Topics" over a forum's topics) holds each record's title.
      if (field.listWord && named([[field.listWord]], words.label) > 0) best = Math.max(best, EVIDENCE.label);
      break;
    case "url":
      if (column === roles.mainLinks) best = Math.max(best, EVIDENCE.mainLink + 0.1);
      break;
    case "text":
      if (isProse(column, roles.mainLinks, texts)) best = Math.max(best, EVIDENCE.longest);
      break;
    case "count":
    case "number":
      if (share(texts, (text) => unitNames(text, field.names)) >= MIN_FIT) best = Math.max(best, EVIDENCE.unit);
      if (best === 0) best = named(field.names, words.href) * EVIDENCE.href;
      // A count written bare ("12" beside an answer) where nothing names one: numbers alone that are not ranks.
      if (best === 0 && share(texts, (text) => BARE_NUMBER.test(text)) >= MIN_FIT && !isSequence(texts))
        best = EVIDENCE.typeOnly;
      break;
    case "rank":
      if (isSequence(texts)) best = Math.max(best, EVIDENCE.sequence);
      break;
    case "rating": {
      if (share(texts, (text) => OUT_OF.test(text)) >= MIN_FIT) best = Math.max(best, EVIDENCE.typeOnly + 0.1);
      const names = [...field.names, ...field.heads];
      if (share(texts, (text) => text.length <= 60 && unitNames(text, names, true)) >= MIN_FIT)
        best = Math.max(best, EVIDENCE.valueWord);
      break;
    }
    case "date":
      // A column of dates (or <time> elements) answers a date field that nothing names.
      if (best === 0 && share(texts, (text) => DATE_LIKE.test(text) || datesIn(text).length > 0) >= MIN_FIT)
        best = EVIDENCE.typeOnly;
      if (best === 0 && column.cells.every((cell) => cell === undefined || cell.tagName === "time"))
        best = EVIDENCE.typeOnly;
      break;
    case "boolean":
      // A yes/no stated in words that name the field ("In stock" for `in_stock`, "Remote" for `is_remote`).
      if (share(texts, (text) => text.length <= 60 && statesField(text, field)) >= MIN_FIT)
        best = Math.max(best, EVIDENCE.valueWord);
      break;
    case "price":
      if (best === 0 && share(texts, (text) => currencyOf(text) !== undefined) >= MIN_FIT) best = EVIDENCE.typeOnly;
      break;
    case "string":
      if (share(texts, (text) => text.length <= 60 && unitNames(text, field.names, true)) >= MIN_FIT)
        best = Math.max(best, EVIDENCE.valueWord);
      // A price asked for as text is still written with its currency ("CDN$ 21.99").
      if (best === 0 && namesPrice(field) && share(texts, (text) => currencyOf(text) !== undefined) >= MIN_FIT)
        best = EVIDENCE.typeOnly;
      // A link's address names what it links to ("/user?id=kim" for an author, "/company/acme" for a company).
      if (best === 0 && column.cells.some((cell) => cell?.tagName === "a"))
        best = named(field.names, words.href) * EVIDENCE.href;
      break;
    default:
      break;
  }
  return best;
}

/** Whether a text reads as yes or no and names the field: "In stock", "Out of stock" for `in_stock`. */
function statesField(text: string, field: ItemField): boolean {
  return parseBoolean(text) !== undefined && unitNames(text, [...field.names, ...field.heads], true);
}

/** A text that is a number alone, perhaps shortened ("12", "1,204", "1.2k"). */
const BARE_NUMBER = /^[+-]?\d[\d.,\u00a0]*[kKmM]?$/;
/** Dates as lists write them relative to now ("3 days ago"), and a rating's scale ("4.5 out of 5", "8/10"). */
const DATE_LIKE = /\b(\d+\s+(second|minute|hour|day|week|month|year)s?\s+ago|yesterday|today|just now|just posted)\b/i;
const OUT_OF = /\d\s*(\/|\p{L}+(\s\p{L}+)?)\s*(5|10)\b/u;

/** A list field's path: the elements its markup names, several in a record where they are. */
export function listColumn(
  field: ItemField,
  columns: Columns,
  wordsOf: (column: Column) => ColumnWords,
): { column: Column; score: number; list: string } | undefined {
  let best: { column: Column; score: number; list: string } | undefined;
  for (const column of columns.columns) {
    if (!column.key.endsWith("#0") || column.count === 0) continue;
    const words = wordsOf(column);
    const evidence = Math.max(
      named(field.names, words.own),
      named(field.names, words.ancestors) * EVIDENCE.ancestor,
      named(field.names, words.label) * EVIDENCE.label,
      // Links whose addresses name the field ("/tag/change/" for tags).
      column.cells.some((cell) => cell?.tagName === "a") ? named(field.names, words.href) * EVIDENCE.href : 0,
    );
    if (evidence === 0) continue;
    const items = columns.lists.get(column.path) ?? [];
    const several = items.filter((list) => list && list.length >= 2).length;
    const score = evidence * (several > 0 ? 1 : 0.7) + column.depth * 0.001;
    if (!best || score > best.score) best = { column, score, list: column.path };
  }
  return best;
}

/** An old price (struck through, or named as before, was, list price): not the one to pay. */
export function isOldPrice(column: Column, wordsOf: (column: Column) => ColumnWords): boolean {
  const { own, ancestors } = wordsOf(column);
  if ([...own, ...ancestors].some((word) => OLD_PRICE_WORDS.has(word))) return true;
  const cell = column.cells.find((c) => c !== undefined);
  for (let node: Element | null = cell ?? null; node && isTag(node); node = node.parent as Element | null) {
    if (node.tagName === "s" || node.tagName === "strike" || node.tagName === "del") return true;
  }
  return false;
}

/** Whether the page names the field at the place (its markup, an icon, a unit), rather than the place's role alone. */
export function isNamed(
  field: ItemField,
  column: Column,
  wordsOf: (column: Column) => ColumnWords,
  textsOf: (column: Column) => (string | undefined)[],
): boolean {
  const words = wordsOf(column);
  if (
    named(field.names, words.own) > 0 ||
    named(field.names, words.ancestors) > 0 ||
    named(field.names, words.icon) > 0 ||
    named(field.names, words.label) > 0
  )
    return true;
  const texts = textsOf(column);
  // A unit names a count ("1,145 points"), a currency a price ("$59.99").
  if (field.kind === "count" || field.kind === "number")
    return share(texts, (text) => unitNames(text, field.names)) >= MIN_FIT;
  return field.kind === "price" && share(texts, (text) => currencyOf(text) !== undefined) >= MIN_FIT;
}

/**
 * Lists of records read from a listing page's layout, without a model: the
 * page's repeated records (records/segment.ts), the main list chosen among
 * them, and each item field read from one column of it (records/fields.ts).
 * The main list is the one whose records fill the item's fields best, then
 * the one with the most text that is not link text, outside the page's
 * navigation, header, footer and side boxes: a menu fills a title and a link
 * at most, a "related" box is smaller than the list it sits beside. Where a
 * list's records each hold several records of another list (the rows of a
 * grid, or the columns of a page), the inner list is the one.
 */
import type { ObjectNode } from "@winnow/platform";
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { type Columns, pageLists, type RecordList, readColumns, valueText, withNested } from "../../../layout/index.js";
import { childPointer, type EvidenceTrail } from "../../../schema/evidence.js";
import { type NameHints, nameHints } from "../../../schema/field-names.js";
import { isAd } from "./ads.js";
import { type Assignment, assignColumns } from "./assign.js";
import { describeFields, type ItemField } from "./field-kinds.js";
import { type Context, cellOf, readField, readingContext } from "./read-cell.js";

export type Item = Record<string, unknown>;

/** Candidates read for their fields at most: the largest lists by their text. */
const MAX_READ = 8;
/** Below this share of (record, field) pairs answered, no list is the answer: a wrong list is worse than none. */
const MIN_FILL = 0.34;
/** The fill a list in the page's navigation, header, footer or a side box needs to answer. */
const MIN_BOILERPLATE_FILL = 0.75;
/** How much less a list in the page's navigation, header, footer or a side box counts, and a list of one record. */
const BOILERPLATE = 0.25;
const ALONE = 0.5;
/** How much link text lowers a list's weight: a menu is all links. */
const LINK_WEIGHT = 0.6;
/** How nearly as well a list of smaller records must fill the fields to be the one; a list that adds nested records to another's. */
const INNER_FILL = 0.8;
const NESTED_FILL = 0.9;
/** The evidence of a value read from a column, at most. */
const MAX_CONFIDENCE = 0.9;

interface ReadList {
  list: RecordList;
  columns: Columns;
  context: Context;
  assignment: Assignment;
  score: number;
}

/**
 * The records of the page's main list for the array of objects `name`,
 * or undefined when no list fills the item's fields well enough. `trail`
 * collects each value's evidence under `pointer`.
 */
export function extractRecords(
  $: CheerioAPI,
  baseUrl: URL | undefined,
  name: string,
  item: ObjectNode,
  trail?: EvidenceTrail,
  pointer = "",
): Item[] | undefined {
  const read = readRecords($, baseUrl, item, nameHints(name));
  if (read && trail) read.note(trail, pointer);
  return read?.items;
}

/**
 * The array read from the page's layout: the repeated blocks the markup
 * names for it (builtin/blocks, `blocks`: called with the trail to note its
 * evidence) or the page's main list. The blocks answer first, as they are
 * named for the array; the main list answers where they do not, or where it
 * is a strong list (several records, most fields filled) that answers at
 * least as many values (one section's blocks of a list of several
 * sections; blocks that cannot read an item's price or its link).
 */
export function layoutList(
  $: CheerioAPI,
  baseUrl: URL | undefined,
  item: ObjectNode,
  hints: NameHints,
  blocks: (trail?: EvidenceTrail) => Item[] | undefined,
  trail?: EvidenceTrail,
  pointer = "",
): Item[] | undefined {
  const named = blocks();
  const read = readRecords($, baseUrl, item, hints);
  const better = read && named && read.strong && filled(read.items) >= filled(named);
  if (read && (!named || better)) {
    if (trail) read.note(trail, pointer);
    return read.items;
  }
  return named && trail ? blocks(trail) : named;
}

/** How many values the items hold. */
function filled(items: Item[]): number {
  return items.reduce(
    (sum, item) => sum + Object.values(item).filter((value) => value !== null && value !== false).length,
    0,
  );
}

/** A record answering less than this share of the fields a typical record of its list answers is left out. */
const SPARSE = 0.4;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** A list stands on its own beside named blocks with at least this many records, this full. */
const STRONG_RECORDS = 3;
const STRONG_FILL = 0.75;

interface Records {
  items: Item[];
  /** Each item's record on the page: its elements, in page order. */
  records: Element[][];
  strong: boolean;
  note(trail: EvidenceTrail, pointer: string): void;
}

function readRecords($: CheerioAPI, baseUrl: URL | undefined, item: ObjectNode, hints: NameHints): Records | undefined {
  const fields = describeFields(item, hints);
  const chosen = mainList(pageLists($), fields, baseUrl);
  if (!chosen) return undefined;
  const { list, assignment, context } = chosen;
  const ads = fields.some((field) => field.kind === "ad") ? list.records.map(isAd) : [];
  const rows = list.records.map((record, index) => ({
    record,
    index,
    values: fields.map((field) => {
      if (field.kind === "ad") return ads[index] ?? false;
      const read = assignment.values.get(field.name);
      return (read ? read[index] : readField(field, index, assignment.columns.get(field.name), context)) ?? null;
    }),
  }));
  // A record that answers far fewer fields than the list's records do (a pager, a banner among them) is not one.
  const answered = (values: unknown[]) =>
    values.filter((value, i) => value !== null && fields[i]!.kind !== "ad").length;
  const typical = median(rows.map(({ values }) => answered(values)));
  const read = rows.filter(({ values }) => answered(values) > 0 && answered(values) >= SPARSE * typical);
  const items: Item[] = read.map(({ values }) => Object.fromEntries(fields.map((field, i) => [field.name, values[i]])));
  if (items.length === 0) return undefined;
  return {
    items,
    records: read.map(({ record }) => record),
    strong: items.length >= STRONG_RECORDS && assignment.fill >= STRONG_FILL,
    note: (trail, pointer) =>
      read.forEach(({ record, index, values }, i) =>
        noteRecord(trail, childPointer(pointer, i), fields, record, assignment, index, values),
      ),
  };
}

/**
 * The candidate lists scored, the main list first. The heaviest are read
 * first; a list that could not score above the best one read so far even
 * if its records filled every field is not read, unless it lies inside the
 * best one's records (an inner list may still be the one).
 */
function rankLists(lists: RecordList[], fields: ItemField[], baseUrl: URL | undefined): ReadList[] {
  const heaviest = lists
    .map((list) => ({ list, weight: weightOf(list) }))
    .filter(({ weight }) => weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, MAX_READ);
  // Each with the records nested in its records, where some are (replies in comments), as another candidate.
  const weighed = heaviest.flatMap((read) => {
    const nested = withNested(read.list);
    return nested ? [read, { list: nested, weight: read.weight }] : [read];
  });
  const read: ReadList[] = [];
  let best: ReadList | undefined;
  for (const { list, weight } of weighed) {
    const settled = best && best.list.records.length >= 2 && best.assignment.fill >= MIN_FILL && best.assignment.enough;
    // Only a list with as many records as the best one's, inside them, may still be the one (the cells of its rows).
    const inner =
      best !== undefined && list.records.length >= best.list.records.length && insideRecords(list, best.list);
    if (settled && Math.sqrt(weight) < best!.score && !inner) continue;
    const columns = readColumns(list.records);
    const context = readingContext(list.records, columns, baseUrl);
    const assignment = assignColumns(fields, context);
    const scored = { list, columns, context, assignment, score: assignment.fill * assignment.fill * Math.sqrt(weight) };
    read.push(scored);
    if (!best || scored.score > best.score) best = scored;
  }
  return read.sort((a, b) => b.score - a.score);
}

function mainList(lists: RecordList[], fields: ItemField[], baseUrl: URL | undefined): ReadList | undefined {
  const ranked = rankLists(lists, fields, baseUrl);
  // A list of one record answers only where no list of several fills the fields well enough.
  const several = ranked.filter(
    (read) => read.list.records.length >= 2 && read.assignment.fill >= MIN_FILL && read.assignment.enough,
  );
  let best = several[0] ?? ranked[0];
  if (!best) return undefined;
  // A list whose records each hold several records of another list that fills the fields nearly as well (or
  // records of one that fills them better: sections holding the list), or whose records are several of
  // another's (rows in pairs that are each a record): the other one.
  const inner = ranked.filter((other) => {
    if (other === best) return false;
    const [n, outer, fill, outerFill] = [
      other.list.records.length,
      best!.list.records.length,
      other.assignment.fill,
      best!.assignment.fill,
    ];
    const smaller = (n >= 2 * outer && fill >= INNER_FILL * outerFill) || (n >= outer && fill > outerFill);
    if (smaller && (insideRecords(other.list, best!.list) || other.list.container === best!.list.container))
      return true;
    // The same records and the ones nested in them (replies in comments), nearly as full.
    return n > outer && fill >= NESTED_FILL * outerFill && holdsRecords(other.list, best!.list);
  });
  if (inner.length > 0) best = inner.reduce((a, b) => (b.score > a.score ? b : a));
  // A list in a side box, a carousel or the navigation answers only where it fills the fields well: asked for itself.
  const floor = best.list.boilerplate ? MIN_BOILERPLATE_FILL : MIN_FILL;
  return best.assignment.fill >= floor && best.assignment.enough ? best : undefined;
}

/** A list's weight before its fields are read: its text that is not link text, less for boilerplate and for one record. */
function weightOf(list: RecordList): number {
  const linkShare = list.text > 0 ? list.linkText / list.text : 1;
  const weight =
    list.text *
    (1 - LINK_WEIGHT * linkShare) *
    (list.boilerplate ? BOILERPLATE : 1) *
    (list.records.length === 1 ? ALONE : 1);
  return list.text >= 3 * list.records.length ? weight : 0;
}

/** Whether the records of one list lie inside the records of another (the cells of a grid inside its rows): the first, middle and last checked. */
function insideRecords(inner: RecordList, outer: RecordList): boolean {
  const elements = new Set(outer.records.flat());
  const { records } = inner;
  return [records[0], records[records.length >> 1], records.at(-1)].every((record) => {
    for (let node: Element | null = record?.[0]?.parent as Element | null; node; node = node.parent as Element | null)
      if (elements.has(node)) return true;
    return false;
  });
}

/** Whether a list holds every record of another (and more). */
function holdsRecords(outer: RecordList, inner: RecordList): boolean {
  const heads = new Set(outer.records.map(([head]) => head));
  return inner.records.every(([head]) => heads.has(head));
}

function noteRecord(
  trail: EvidenceTrail,
  at: string,
  fields: ItemField[],
  record: Element[],
  assignment: Assignment,
  index: number,
  values: unknown[],
): void {
  fields.forEach((field, i) => {
    if (values[i] === null) return;
    const choice = assignment.columns.get(field.name);
    const element = (choice && cellOf(choice, index)) ?? record[0]!;
    const confidence = Math.min(MAX_CONFIDENCE, choice?.score ?? 0.7);
    trail.note(childPointer(at, field.name), { source: "layout", text: valueText(element), element }, confidence);
  });
}

/** A list of records the schema asks for, as the page's layout shows it. */
export interface ShownList {
  /** The top-level field. */
  field: string;
  records: Element[][];
  /** Several records that fill most of the item's fields: a count to hold an answer against. */
  strong: boolean;
}

/** The main list of each top-level array-of-objects field the page's layout shows. */
export function shownLists($: CheerioAPI, baseUrl: URL | undefined, tree: ObjectNode): ShownList[] {
  return tree.fields.flatMap(({ name, node }) => {
    if (node.kind !== "array" || node.items.kind !== "object") return [];
    const read = readRecords($, baseUrl, node.items, nameHints(name));
    return read ? [{ field: name, records: read.records, strong: read.strong }] : [];
  });
}

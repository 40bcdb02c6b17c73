/**
 * List templates: where a listing page shows the records a model read. The
 * records are looked for among the page's own repeated records (the
 * builtin engine's segmentation), so the locator names the list the page
 * lays out: its container, the step from the container to each record, and
 * for each field the one place inside a record (its column) that shows the
 * field's value in most records, read the same way in each. A record the
 * model skipped or a value it missed in a few records does not move the
 * column; a value shown in a different place in every record finds none.
 */
import type { Field, ObjectNode } from "@winnow/platform";
import type { Element } from "domhandler";
import { pageLists, type RecordList } from "../layout/index.js";
import { classNumber } from "../page/class-number.js";
import type { PageIndex } from "../page/page-index.js";
import { ShownText } from "../page/text-match.js";
import { firstNumber } from "../schema/normalize.js";
import { type AttributeValue, type ItemField, type Located, type Locator, readAt, readItemField } from "./locator.js";
import { MAX_AROUND, numberText, readText, spanOf, swapSeparators, valuePattern, withoutEmpty } from "./places.js";
import { relativeStep } from "./steps.js";
import { isPresentValue, readAs, sameValue } from "./values.js";

/** A model's record and the page's record that shows it; share of a record's values the page's record must show. */
const SHOWN_SHARE = 0.5;
/** Page records looked at ahead of the last paired one for the next model record: records the model skipped (ads). */
const LOOK_AHEAD = 8;
/** A field's columns answer it when they read its value right in at least this share of the records that have one; at most this many. */
const COLUMN_SHARE = 0.6;
const MAX_ALTERNATIVES = 3;
/** An alternative column reads at least this share of the records right, and more of them right than wrong. */
const ALTERNATIVE_SHARE = 0.1;
/** Places tried as a field's columns: the most shared. */
const MAX_CANDIDATES = 12;
/** Elements read per record part. */
const MAX_PART_ELEMENTS = 400;
/** Steps from a record's part to a column, and from the container to a record. */
const MAX_STEPS = 16;

type Reading = Pick<Locator, "items" | "fields">;
/** The page's elements' attributes by the value each holds (locator.ts, heldValues). */
type Attributes = ReadonlyMap<Element, ReadonlyMap<string, AttributeValue>>;

/** A page's list whose records show an answered list of objects: its container, how to read it, and what that reads. */
export interface RecordsShown {
  container: Element;
  reading: Reading;
  /** What the reading reads there; undefined when it reads no record. */
  raw: Located["raw"] | undefined;
}

/**
 * The page's list that shows the model's records: its container, how each record and field is read in it, and what
 * that reads.
 */
export function recordsShown(
  index: PageIndex,
  attributes: Attributes,
  item: ObjectNode,
  value: Record<string, unknown>[],
): RecordsShown[] {
  const paired = bestPairing(index, pageLists(index.$), value);
  if (!paired) return [];
  const { container } = paired.list;
  const items = itemsStep(
    container,
    paired.pairs.map(([, record]) => record[0]!),
  );
  if (!items) return [];
  // Every record the items step finds, the ones segmentation left out (an ad of another make-up) too, is paired
  // again: the columns are learnt from each make-up of record the template will read.
  const parts = new Map(paired.list.records.map((record) => [record[0]!, record]));
  const records = index.select(container, items).map((head) => parts.get(head) ?? [head]);
  const pairs = pairRecords(index, records, value);
  const fields = item.fields.flatMap((field) => columnsOf(index, attributes, field, pairs));
  if (fields.length === 0) return [];
  const reading = { items, fields };
  return [{ container, reading, raw: readAt(index, container, reading)?.raw }];
}

type Pair = [Record<string, unknown>, Element[]];

/** The list whose records show the most of the model's records, in page order; none showing half of them is none. */
function bestPairing(
  index: PageIndex,
  lists: readonly RecordList[],
  value: Record<string, unknown>[],
): { list: RecordList; pairs: Pair[] } | undefined {
  let best: { list: RecordList; pairs: Pair[] } | undefined;
  for (const list of lists) {
    if (list.records.length < Math.min(2, value.length)) continue;
    const pairs = pairRecords(index, list.records, value);
    // Equal pairings: the list nearer the model's count (a grid's cells over its rows).
    const closer =
      best !== undefined &&
      pairs.length === best.pairs.length &&
      Math.abs(list.records.length - value.length) < Math.abs(best.list.records.length - value.length);
    if (!best || pairs.length > best.pairs.length || closer) best = { list, pairs };
  }
  return best && best.pairs.length >= Math.max(1, Math.ceil(SHOWN_SHARE * value.length)) ? best : undefined;
}

/** The model's records paired with the page's records that show them, both in page order. */
function pairRecords(index: PageIndex, records: Element[][], value: Record<string, unknown>[]): Pair[] {
  const texts = records.map((record) => new ShownText(record.map((part) => index.text(part)).join(" ")));
  const pairs: Pair[] = [];
  let next = 0;
  for (const wanted of value) {
    const present = Object.values(wanted).filter((v) => isPresentValue(v) && typeof v !== "boolean");
    if (present.length === 0) continue;
    for (let at = next; at < Math.min(texts.length, next + LOOK_AHEAD); at += 1) {
      const shown = present.filter((v) => texts[at]!.shows(v)).length;
      if (shown >= Math.max(1, SHOWN_SHARE * present.length)) {
        pairs.push([wanted, records[at]!]);
        next = at + 1;
        break;
      }
    }
  }
  return pairs;
}

/**
 * The selector from the container to the records' heads: each step the tag and the stable classes every paired
 * head has there (an ad's extra class does not leave it out).
 */
function itemsStep(container: Element, heads: Element[]): string | undefined {
  const chains = heads.map((head) => {
    const chain: Element[] = [];
    for (let node: Element | null = head; node && node !== container; node = node.parent as Element | null)
      chain.unshift(node);
    return chain;
  });
  const depth = chains[0]!.length;
  if (depth === 0 || depth > MAX_STEPS || chains.some((chain) => chain.length !== depth)) return undefined;
  const steps: string[] = [];
  for (let level = 0; level < depth; level += 1) {
    const at = chains.map((chain) => chain[level]!);
    if (at.some((element) => element.tagName !== at[0]!.tagName)) return undefined;
    steps.push(commonStep(at));
  }
  return `:scope > ${steps.join(" > ")}`;
}

/** A step every element matches: their tag and the classes and itemprop all of them have. */
function commonStep(elements: Element[]): string {
  const [first, ...rest] = elements.map((element) => relativeStep(element).split(/(?=[.[])/));
  const shared = first!.filter((part, i) => i === 0 || rest.every((parts) => parts.includes(part)));
  return shared.join("");
}

interface Place {
  field: ItemField;
  key: string;
}

/**
 * The field's columns: the places in each paired record that show the
 * record's value (an element's text, cut around the value, or its
 * attribute; for a list field, the place whose elements are the list), the
 * most shared first, read in turn: each next one chosen for the records it
 * reads right where the ones before read nothing (an ad's extra wrapper,
 * a price with and without "(3 offers)" after it). A place that reads a
 * wrong value, or one where the model found none, counts against it. A
 * number may be stated by a class only (a star widget's `star-rating
 * Three`). For a boolean, the place that is there in the records whose value
 * is true and only there (an ad's marker), or else the text that says it in
 * each ("In stock"). None when they read fewer than most records' values
 * right.
 */
function columnsOf(index: PageIndex, attributes: Attributes, field: Field, pairs: Pair[]): ItemField[] {
  // A boolean is a marker where records differ; where every record reads the same, the text that says so ("In stock").
  const marker =
    field.node.kind === "scalar" && field.node.type === "boolean" ? markerColumn(index, field.name, pairs) : [];
  if (marker.length > 0) return marker;
  const votes = new Map<string, { place: ItemField; count: number }>();
  let present = 0;
  for (const [wanted, record] of pairs) {
    const value = wanted[field.name];
    if (!isPresentValue(value)) continue;
    present += 1;
    const places = record.flatMap((root, part) =>
      Array.isArray(value)
        ? listPlaces(index, root, part, field.name, value)
        : valuePlaces(index, attributes, root, part, field, value),
    );
    for (const { field: place, key } of new Map(places.map((p) => [p.key, p])).values()) {
      const entry = votes.get(key) ?? { place, count: 0 };
      entry.count += 1;
      votes.set(key, entry);
    }
  }
  const candidates = [...votes.values()].sort((a, b) => b.count - a.count).slice(0, MAX_CANDIDATES);
  // How each candidate reads each paired record: right, wrong, or nothing.
  const outcomes = candidates.map(({ place }) =>
    pairs.map(([wanted, record]): Outcome => {
      const raw = readItemField(index, record[0]!, place);
      if (raw === undefined) return "none";
      const value = wanted[field.name];
      return isPresentValue(value) && sameValue(readAs(field, raw), value) ? "right" : "wrong";
    }),
  );
  const chosen: ItemField[] = [];
  const resolved = new Set<number>();
  let right = 0;
  while (chosen.length < MAX_ALTERNATIVES) {
    // The most precise next (a place that reads a few records wrong would keep a precise one from reading them).
    let best: { at: number; precision: number; right: number } | undefined;
    outcomes.forEach((reads, at) => {
      const open = reads.filter((_, i) => !resolved.has(i));
      const gained = open.filter((o) => o === "right").length;
      const precision = gained / (gained + open.filter((o) => o === "wrong").length || 1);
      if (gained < Math.max(1, ALTERNATIVE_SHARE * present)) return;
      if (!best || precision > best.precision || (precision === best.precision && gained > best.right))
        best = { at, precision, right: gained };
    });
    if (!best || best.precision <= 0.5) break;
    chosen.push(candidates[best.at]!.place);
    right += best.right;
    outcomes[best.at]!.forEach((o, i) => {
      if (o !== "none") resolved.add(i);
    });
  }
  return present > 0 && right >= COLUMN_SHARE * present ? chosen : [];
}

type Outcome = "right" | "wrong" | "none";

/** An element of a record's part, with its path of steps from the part and its occurrence there. */
interface Spot {
  element: Element;
  path: string;
  index: number;
}

/** Each part's elements, read once per page: every field looks through them. */
const placesRead = new WeakMap<Element, Spot[]>();

/** A record part's elements in document order. */
function placesIn(root: Element): Spot[] {
  const known = placesRead.get(root);
  if (known) return known;
  const found: Spot[] = [];
  const seen = new Map<string, number>();
  const visit = (element: Element, path: string, depth: number) => {
    if (found.length >= MAX_PART_ELEMENTS) return;
    const occurrence = seen.get(path) ?? 0;
    seen.set(path, occurrence + 1);
    found.push({ element, path, index: occurrence });
    if (depth >= MAX_STEPS) return;
    for (const child of element.children)
      if (child.type === "tag") visit(child as Element, `${path} > ${relativeStep(child as Element)}`, depth + 1);
  };
  visit(root, ":scope", 0);
  placesRead.set(root, found);
  return found;
}

function valuePlaces(
  index: PageIndex,
  attributes: Attributes,
  root: Element,
  part: number,
  field: Field,
  value: unknown,
): Place[] {
  const shown = new Map<Element, Place[]>();
  const all = placesIn(root);
  for (const { element, path, index: at } of all) {
    const text = index.text(element);
    if (text.length > MAX_AROUND + String(value).length + 30) continue;
    const places = readingsOf(field, text, value).map((reading) => placeOf(field.name, part, path, at, reading));
    if (places.length > 0) shown.set(element, places);
  }
  // The innermost elements that show it: a wrapper around the value's element is not a column of its own.
  const innermost = [...shown]
    .filter(([element]) => !element.children.some((child) => shown.has(child as Element)))
    .flatMap(([, places]) => places);
  if (typeof value === "number")
    for (const { element, path, index: at } of all)
      if (classNumber(element) === value) innermost.push(placeOf(field.name, part, path, at, { classNumber: true }));
  if (typeof value !== "string") return innermost;
  for (const { element, path, index: at } of all) {
    const held = attributes.get(element)?.get(value);
    if (held) innermost.push(placeOf(field.name, part, path, at, { attr: held.attr }));
  }
  return innermost;
}

/**
 * The ways an element's text reads as the value: cut around where it writes
 * it; a number also as the first number it writes (the words around a price
 * vary from record to record: "(3 offers)"), and on a page that writes
 * decimals with a comma ("92.284" ratings, "24,99 €"), with the separators
 * swapped.
 */
function readingsOf(field: Field, text: string, value: unknown): Partial<ItemField>[] {
  const readings: Partial<ItemField>[] = [];
  const readAround = (written: string, extra: Partial<ItemField>) => {
    const span = spanOf(written, value, field.name);
    if (!span) return false;
    readings.push(withoutEmpty({ ...extra, prefix: written.slice(0, span[0]), suffix: written.slice(span[1]) }));
    const first = numberText(firstNumber(written));
    if (typeof value === "number" && first !== undefined && sameValue(readAs(field, first), value))
      readings.push({ ...extra, firstNumber: true });
    return true;
  };
  if (!readAround(text, {}) && typeof value === "number") readAround(swapSeparators(text), { decimalComma: true });
  // A date amid words that vary from record to record ("Mon Dec 04, 2006 5:46 am <last poster>"): read by its shape.
  const pattern = valuePattern(value);
  if (pattern && sameValue(readText(text, { pattern }), value)) readings.push({ pattern });
  return readings;
}

/** For a list of texts: the path whose elements in the record are exactly the list's items. */
function listPlaces(index: PageIndex, root: Element, part: number, name: string, value: unknown[]): Place[] {
  const wanted = value.map((item) => new ShownText(String(item)));
  const byPath = new Map<string, Element[]>();
  for (const { element, path } of placesIn(root)) byPath.set(path, [...(byPath.get(path) ?? []), element]);
  const places: Place[] = [];
  for (const [path, elements] of byPath) {
    const texts = elements.map((element) => index.text(element)).filter((text) => text !== "");
    if (texts.length !== wanted.length || !texts.every((text, i) => wanted[i]!.shows(text) && text.length > 0))
      continue;
    places.push(placeOf(name, part, path, 0, { all: true }));
  }
  return places;
}

/** A boolean's column: the place present in every record whose value is true and in no record whose value is false. */
function markerColumn(index: PageIndex, name: string, pairs: Pair[]): ItemField[] {
  const truths = pairs.filter(([wanted]) => wanted[name] === true);
  const falses = pairs.filter(([wanted]) => wanted[name] === false);
  if (truths.length === 0 || falses.length === 0) return [];
  const pathsOf = ([, record]: Pair) =>
    new Set(
      record.flatMap((root, part) =>
        placesIn(root)
          .filter(({ element }) => index.text(element) !== "" || element.attribs["aria-label"])
          .map(({ path }) => `${part}\u0000${path}`),
      ),
    );
  const [first, ...others] = truths.map(pathsOf);
  const inFalse = new Set(falses.flatMap((pair) => [...pathsOf(pair)]));
  const marker = [...first!].find((key) => !inFalse.has(key) && others.every((paths) => paths.has(key)));
  if (!marker) return [];
  const [part, path] = marker.split("\u0000") as [string, string];
  return [placeOf(name, Number(part), path, 0, { exists: true }).field];
}

function placeOf(name: string, part: number, path: string, at: number, reading: Partial<ItemField>): Place {
  const field: ItemField = {
    name,
    ...(part > 0 ? { part } : {}),
    ...(path === ":scope" ? {} : { path }),
    index: at,
    ...reading,
  };
  // Numbers in the text cut around a value are any number, as the reading cuts them: "(1 Offers)" and "(4 Offers)".
  const around = (text: string | undefined) => text?.replace(/\d+/g, "0");
  return { field, key: JSON.stringify({ ...field, prefix: around(field.prefix), suffix: around(field.suffix) }) };
}

/**
 * Locators: where a page of a template shows a field's value, as data. A
 * locator names an element by a short CSS path of tags and stable ids,
 * classes and itemprops (never a chain of positions), optionally from a
 * label near it ("Publisher:"), and says how its value is read: an
 * attribute, or the element's text with a constant prefix and suffix cut off
 * ("Price: $12.50" → "$12.50"), or, for a list, the items a selector
 * finds inside it, each read by its text, or for a list of objects each
 * field read from its own element inside the item. The raw text is read
 * into the field's type by shape.ts, as any answer is.
 */
import type { Element } from "domhandler";
import { z } from "zod";
import { classNumber } from "../page/class-number.js";
import { contains } from "../page/elements.js";
import { absoluteUrl } from "../page/page.js";
import type { PageIndex } from "../page/page-index.js";
import { PATTERN, readText } from "./places.js";

/** Attributes that hold a value a locator may read, in the order locators try them. */
const VALUE_ATTRIBUTES = ["href", "src", "content", "datetime", "title"] as const;

/** An attribute that may hold a value, with what a locator reading it reads: links made absolute. */
export interface AttributeValue {
  attr: (typeof VALUE_ATTRIBUTES)[number];
  /** As written, trimmed. */
  written: string;
  /** What the locator reads; undefined when it reads nothing (an empty attribute, a link that is no web address). */
  raw: string | undefined;
}

/** What a locator reads from one of an element's attributes (a link made absolute against `base`); none where it has none. */
function attributeOf(
  element: Element,
  attr: AttributeValue["attr"],
  base: URL | undefined,
): AttributeValue | undefined {
  const written = element.attribs[attr]?.trim();
  if (written === undefined) return undefined;
  const raw = !written ? undefined : attr === "href" || attr === "src" ? absoluteUrl(written, base) : written;
  return { attr, written, raw };
}

/**
 * An element's attributes by the value each holds: as written, and a link also as the absolute address it is; for a
 * value two of them hold, the first in the order locators try them. None for an element without such attributes.
 */
export function heldValues(element: Element, base: URL | undefined): Map<string, AttributeValue> | undefined {
  let held: Map<string, AttributeValue> | undefined;
  for (const attr of VALUE_ATTRIBUTES) {
    const value = attributeOf(element, attr, base);
    if (!value) continue;
    held ??= new Map();
    if (!held.has(value.written)) held.set(value.written, value);
    if ((attr === "href" || attr === "src") && value.raw !== undefined && !held.has(value.raw))
      held.set(value.raw, value);
  }
  return held;
}

/**
 * How a value is read from its element: an attribute, or the text (the element's own, or all of it) with a prefix and
 * suffix cut off.
 */
const readingShape = {
  /** Read from this attribute instead of the text. */
  attr: z.enum(VALUE_ATTRIBUTES).optional(),
  /** Read the element's own text, without its child elements' ("<h1>Title <small>[Paperback]</small></h1>"). */
  own: z.literal(true).optional(),
  /** The page writes numbers with a decimal comma: the text is read with "." and "," swapped. */
  decimalComma: z.literal(true).optional(),
  /** Read the first number the text writes: the words around it vary ("$14.98 (2 offers)", "$4.48"). */
  firstNumber: z.literal(true).optional(),
  /** Read the first part of the text of this shape (places.ts, valuePattern): a date amid words that vary. */
  pattern: z.string().max(400).regex(PATTERN).optional(),
  /** Read the number the element's class states (`star-rating Three`, page/class-number.ts), not its text. */
  classNumber: z.literal(true).optional(),
  /** Text before and after the value, cut off. */
  prefix: z.string().max(80).optional(),
  suffix: z.string().max(80).optional(),
};

/**
 * A field of a list's item: read from the item itself, or from the index-th element inside it that a selector finds;
 * inside the item or one of the siblings that follow it as parts of the same record (a table's details row).
 */
const itemFieldSchema = z.strictObject({
  name: z.string().min(1).max(128),
  /** Which part of the record: 0 the item, n its n-th following sibling. */
  part: z.number().int().min(1).max(3).optional(),
  path: z.string().min(1).max(600).optional(),
  index: z.number().int().min(0).max(50),
  ...readingShape,
  /** A list field of the item: every element the path finds, each read by its text. */
  all: z.literal(true).optional(),
  /** A boolean field of the item: whether the path finds an element (an ad's marker). */
  exists: z.literal(true).optional(),
});

export const locatorSchema = z.strictObject({
  /** CSS selector of tags, stable ids, classes and itemprops. */
  path: z.string().min(1).max(300),
  /** A label's text: the element is looked for near the first element that shows it. */
  label: z.string().min(1).max(60).optional(),
  /** Levels above the label that hold the element. */
  up: z.number().int().min(0).max(4).optional(),
  /** Which of the path's matches (from the label on, when there is one), in document order. */
  index: z.number().int().min(0).max(50),
  ...readingShape,
  /** For a list: the items inside the element, each read by its text, or by `fields` for a list of objects. */
  items: z.string().min(1).max(600).optional(),
  fields: z.array(itemFieldSchema).min(1).max(50).optional(),
});

type Reading = Pick<
  Locator,
  "attr" | "own" | "decimalComma" | "firstNumber" | "classNumber" | "pattern" | "prefix" | "suffix"
>;
export type ItemField = z.infer<typeof itemFieldSchema>;
export type Locator = z.infer<typeof locatorSchema>;

/**
 * What a template learns of a field its pages never show: the model read
 * whole pages of it and found no value. Trusted, it answers null without
 * asking the model, except on pages that re-check it.
 */
export const absenceSchema = z.strictObject({ absent: z.literal(true) });
export type Absence = z.infer<typeof absenceSchema>;
export const ABSENCE: Absence = { absent: true };

export function isAbsence(locator: Locator | Absence): locator is Absence {
  return "absent" in locator;
}

/**
 * A located value before shape.ts reads it: a text, a list of texts or of objects of texts; with the element and its
 * text, as evidence.
 */
export interface Located {
  raw: string | string[] | Record<string, string | string[] | null>[];
  element: Element;
  /** The element's text (or the attribute read). */
  text: string;
}

/**
 * A key that names a locator: the same locator found on two pages is one
 * record. Numbers in the text cut off around a value are any number ("Pulp
 * Fiction (1994)" and "Se7en (1995)" are cut alike), so they are one key.
 */
export function locatorKey(locator: Locator | Absence): string {
  if (isAbsence(locator)) return JSON.stringify(["absent"]);
  const around = (text: string | undefined) => (text ?? "").replace(/\d+/g, "0");
  const reading = (r: Reading) => [
    r.attr ?? null,
    r.own ?? false,
    around(r.prefix),
    around(r.suffix),
    ...(r.decimalComma ? [true] : []),
    ...(r.firstNumber ? ["first number"] : []),
    ...(r.classNumber ? ["class number"] : []),
    ...(r.pattern ? [`pattern ${r.pattern}`] : []),
  ];
  const fields =
    locator.fields?.map((f) => [
      f.name,
      f.part ?? 0,
      f.path ?? null,
      f.index,
      ...reading(f),
      f.all ?? false,
      f.exists ?? false,
    ]) ?? null;
  return JSON.stringify([
    locator.path,
    locator.label ?? null,
    locator.up ?? null,
    locator.index,
    ...reading(locator),
    locator.items ?? null,
    fields,
  ]);
}

/** The element a locator names on this page, or undefined. */
export function locateElement(
  index: PageIndex,
  locator: Pick<Locator, "path" | "label" | "up" | "index">,
): Element | undefined {
  return matches(index, locator)[locator.index];
}

/**
 * The path's matches in document order: from the first label shown, within `up` levels of it; or in the whole body. A
 * selector the parser refuses matches nothing.
 */
function matches(index: PageIndex, locator: Pick<Locator, "path" | "label" | "up">): readonly Element[] {
  try {
    return matchesOf(index, locator);
  } catch {
    return [];
  }
}

function matchesOf(index: PageIndex, locator: Pick<Locator, "path" | "label" | "up">): readonly Element[] {
  if (locator.label === undefined) return index.find(locator.path);
  const anchor = index.labelled(locator.label)[0];
  if (!anchor) return [];
  let scope: Element = anchor;
  for (let level = 0; level < (locator.up ?? 0) && scope.parent?.type === "tag"; level += 1)
    scope = scope.parent as Element;
  const inScope = index.select(scope, locator.path, true);
  const from = index.position(anchor);
  // What holds the label ("<td><b>Author:</b> Kim</td>") or follows it.
  return inScope.filter((element) => contains(element, anchor) || index.position(element) > from);
}

/** The raw value a locator reads on this page, or undefined when the page does not show it as the locator expects. */
export function applyLocator(index: PageIndex, locator: Locator): Located | undefined {
  const element = locateElement(index, locator);
  return element && readAt(index, element, locator);
}

/** The raw value a locator's reading reads at the element it names, or undefined when the element does not show one. */
export function readAt(
  index: PageIndex,
  element: Element,
  locator: Reading & Pick<Locator, "items" | "fields">,
): Located | undefined {
  if (locator.items === undefined) {
    const read = readElement(index, element, locator);
    return read && { ...read, element };
  }
  const items = index.select(element, locator.items);
  const { fields } = locator;
  const raw = fields
    ? items
        .map((item) => readItem(index, item, fields))
        // An item that shows none of the fields (a pager or a banner the selector also finds) is no record.
        .filter((record) => fields.some((f) => !f.exists && record[f.name] !== null))
    : items.map((item) => index.text(item)).filter((text) => text !== "");
  return raw.length > 0 ? { raw, element, text: index.text(element) } : undefined;
}

/** An item's fields: each from the first of its columns that shows it (a field may be read in several places). */
function readItem(index: PageIndex, item: Element, fields: ItemField[]): Record<string, string | string[] | null> {
  const record: Record<string, string | string[] | null> = {};
  for (const field of fields) record[field.name] ??= readItemField(index, item, field) ?? null;
  return record;
}

/** A field of one item of a list, or undefined when the item does not show it. */
export function readItemField(index: PageIndex, item: Element, field: ItemField): string | string[] | undefined {
  let root: Element | undefined = item;
  for (let part = 0; part < (field.part ?? 0) && root; part += 1) root = nextElement(root);
  if (!root) return undefined;
  const found = field.path === undefined ? [root] : index.select(root, field.path);
  if (field.exists) return String(found.length > 0);
  if (field.all) {
    const texts = found.map((element) => index.text(element)).filter((text) => text !== "");
    return texts.length > 0 ? texts : undefined;
  }
  const element = found[field.index];
  return element && readElement(index, element, field)?.raw;
}

function nextElement(element: Element): Element | undefined {
  for (let node = element.next; node; node = node.next) if (node.type === "tag") return node as Element;
  return undefined;
}

/** An element's value as the reading says: an attribute (links made absolute), or its text cut. */
function readElement(index: PageIndex, element: Element, reading: Reading): { raw: string; text: string } | undefined {
  if (reading.classNumber) {
    const number = classNumber(element);
    return number === undefined ? undefined : { raw: String(number), text: element.attribs.class ?? "" };
  }
  if (reading.attr !== undefined) {
    const { raw, written } = attributeOf(element, reading.attr, index.baseUrl) ?? {};
    return raw === undefined ? undefined : { raw, text: written! };
  }
  const text = reading.own ? index.ownText(element) : index.text(element);
  const raw = readText(text, reading);
  return raw === undefined ? undefined : { raw, text };
}

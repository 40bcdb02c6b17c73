/**
 * What the block strategies share: the item's fields and the words that
 * name them, a value read from an element into a field's type, the words of
 * an element's markup, and a candidate's confidence from its evidence.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { Element } from "domhandler";
import { textOf } from "../../../page/elements.js";
import { nameTokens } from "../../../schema/field-names.js";
import { firstNumber, parseNumber } from "../../../schema/normalize.js";
import { LABEL_SYNONYMS } from "../concepts.js";
import { type Scored, singular, words } from "../match.js";
import { fieldHints } from "../name-concepts.js";

export type Item = Record<string, unknown>;

/**
 * Bounds that keep a page of any size cheap: candidates filled, blocks read, elements searched per block, a heading's
 * length.
 */
export const MAX_CANDIDATES = 20;
export const MAX_BLOCKS = 100;
export const MAX_BLOCK_ELEMENTS = 300;
export const MAX_HEADING_CHARS = 80;

const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * Markup words of a heading ("…-group-name", "ingHeading"), and the words of a field that a block's heading can fill.
 */
const HEADING_WORDS = new Set(["heading", "header", "title", "subtitle", "subheading"]);
const NAME_WORDS = new Set(["name", "title", "heading", "header", "label", "caption"]);

/**
 * How sure a candidate is by its evidence: the array's own name in the markup, known values, column headers naming
 * every field.
 */
export const EVIDENCE = { arrayName: 0.85, knownValues: 0.85, fieldNames: 0.75 };

export interface Field {
  name: string;
  node: SchemaNode;
  /**
   * The field's words and its synonyms', each a list of singular words that an element's markup words must all contain.
   */
  names: string[][];
  /** A list of texts (`ingredients: ["string"]`), read from the block's list items. */
  isList: boolean;
  /** A name or title, which the block's heading fills when no element is named for it. */
  isHeading: boolean;
}

export interface Found {
  value: unknown;
  /** Whether it is the block's heading, for want of an element named for the field: weaker evidence. */
  fromHeading: boolean;
  /** The element it was read from; for a list, each item's element. */
  element: Element | undefined;
  items?: Element[];
}

/** A candidate list of items, with what each item's fields were read from. */
export interface Blocks extends Scored<Item[]> {
  found: Map<string, Found>[];
}

export function fieldsOf(item: ObjectNode): Field[] {
  return item.fields.map(({ name, node }) => {
    const subject = fieldHints(name).subject.map(singular);
    const synonyms = (LABEL_SYNONYMS.get(subject.join(" ")) ?? []).map(words);
    return {
      name,
      node,
      names: [subject, ...synonyms].filter((n) => n.length > 0),
      isList: node.kind === "array" && node.items.kind === "scalar" && node.items.type === "string",
      isHeading: node.kind === "scalar" && node.type === "string" && subject.some((word) => NAME_WORDS.has(word)),
    };
  });
}

/**
 * The candidate's items and its confidence: its evidence, lowered for the
 * fields that most blocks leave empty. Where the markup names the array,
 * some field must be found in most blocks other than as their heading (a
 * "product" section of headings is no product list); else every field must
 * be, again and again (a table's columns). A heading-filled field holds when
 * some block has one: a first group often has no heading.
 */
export function scored(blocks: Map<string, Found>[], fields: Field[], arrayNamed: boolean): Blocks {
  const most = (count: number) => count >= 2 && count * 2 >= blocks.length;
  const held = fields.filter((field) => {
    const count = blocks.filter((block) => block.has(field.name)).length;
    return field.isHeading ? count > 0 : most(count);
  });
  const solid = fields.filter((field) =>
    most(blocks.filter((block) => block.get(field.name)?.fromHeading === false).length),
  ).length;
  const evidence = arrayNamed
    ? solid > 0
      ? EVIDENCE.arrayName
      : 0
    : solid >= 2 && solid === fields.length
      ? EVIDENCE.fieldNames
      : 0;
  const found = blocks.filter((block) => block.size > 0);
  const items = found.map((block) =>
    Object.fromEntries(fields.map((field) => [field.name, block.get(field.name)?.value ?? null])),
  );
  return { value: items, confidence: evidence * (0.5 + (0.5 * held.length) / Math.max(fields.length, 1)), found };
}

/**
 * A value of the field's type from an element: for numbers, the first of
 * its content, text, labelling attributes and data attributes named for the
 * field ("data-rating") that reads as one.
 */
export function readValue(element: Element, field: Field): unknown {
  if (field.node.kind !== "scalar") return undefined;
  const text = textOf(element);
  if (field.node.type !== "number" && field.node.type !== "integer") return text || undefined;
  const { attribs } = element;
  const data = Object.entries(attribs).filter(
    ([key]) => key.startsWith("data-") && names(new Set(nameTokens(key).map(singular)), field),
  );
  for (const written of [
    attribs.content,
    text,
    attribs["aria-label"],
    attribs.title,
    ...data.map(([, value]) => value),
  ]) {
    const number = written
      ? (parseNumber(written) ?? (written.length <= 30 ? firstNumber(written) : undefined))
      : undefined;
    if (number !== undefined) return number;
  }
  return undefined;
}

/**
 * The words an element's markup names it by: class, id, itemprop and the names of data attributes, split like field
 * names, singular.
 */
export function markupWords(element: Element): Set<string> {
  const { attribs } = element;
  const dataNames = Object.keys(attribs)
    .filter((key) => key.startsWith("data-"))
    .map((key) => key.slice(5));
  return new Set(
    nameTokens([attribs.class, attribs.id, attribs.itemprop, ...dataNames].filter(Boolean).join(" ")).map(singular),
  );
}

export function names(markup: Set<string>, field: Field): boolean {
  return field.names.some((name) => name.every((word) => markup.has(word)));
}

/** Whether markup words name the array: all of its words ("ingredient_groups" in "ingredient-group"). */
export function namesArray(context: Set<string>, arrayWords: string[]): boolean {
  return arrayWords.length > 0 && arrayWords.every((word) => context.has(word));
}

export function isHeading(element: Element): boolean {
  return HEADING_TAGS.has(element.tagName) || [...markupWords(element)].some((word) => HEADING_WORDS.has(word));
}

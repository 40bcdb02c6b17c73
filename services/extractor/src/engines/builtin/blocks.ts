/**
 * Arrays of objects read from the page's layout when its structured data
 * has none: repeated sibling blocks (a review list, ingredient groups), table
 * rows under a header row, and list items grouped under headings. A block's
 * fields are found by meaning: the words its elements' markup names them by
 * (class, id, itemprop, data attributes), its heading, its list items, a
 * table's column headers. Values the structured data states for a field (a
 * recipe's flat ingredient list) locate the lists that hold them. A candidate
 * needs evidence that it is the array (the array's name in its markup, a
 * header row naming every field, known values), or it is not used: a wrong
 * list is worse than none.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { CheerioAPI } from "cheerio";
import { isTag, type Element, type ParentNode } from "domhandler";
import { nameHints, nameTokens, type NameHints } from "../../field-names.js";
import { firstNumber, parseNumber } from "../../normalize.js";
import { LABEL_SYNONYMS } from "./concepts.js";
import { ancestorsUpTo, contains, elementsUnder, regionOf } from "./dom.js";
import { MIN_CONFIDENCE, singular, words, type Scored } from "./match.js";
import { textOf } from "./text.js";
import { NOT_TEXT } from "./visibility.js";

type Item = Record<string, unknown>;

/** Bounds that keep a page of any size cheap: elements walked, candidates filled, blocks read, elements searched per block. */
const MAX_ELEMENTS = 10_000;
const MAX_CANDIDATES = 20;
const MAX_BLOCKS = 100;
const MAX_BLOCK_ELEMENTS = 300;
const MAX_HEADING_CHARS = 80;
const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Elements that hold items, never a heading. */
const LIST_TAGS = new Set(["ul", "ol", "li", "table"]);
/** Markup words of a heading ("…-group-name", "ingHeading"), and the words of a field that a block's heading can fill. */
const HEADING_WORDS = new Set(["heading", "header", "title", "subtitle", "subheading"]);
const NAME_WORDS = new Set(["name", "title", "heading", "header", "label", "caption"]);
/** How sure a candidate is by its evidence: the array's own name in the markup, known values, column headers naming every field. */
const EVIDENCE = { arrayName: 0.85, knownValues: 0.85, fieldNames: 0.75 };
/** Share of the known values a group of lists must hold, and how alike an item's words and a known value's must be. */
const MIN_COVERAGE = 0.8;
const MIN_LIKENESS = 0.6;

interface Field {
  name: string;
  node: SchemaNode;
  /** The field's words and its synonyms', each a list of singular words that an element's markup words must all contain. */
  names: string[][];
  /** A list of texts (`ingredients: ["string"]`), read from the block's list items. */
  isList: boolean;
  /** A name or title, which the block's heading fills when no element is named for it. */
  isHeading: boolean;
}

/** The items of the array, or undefined when no candidate reaches MIN_CONFIDENCE. `known` gives the texts structured data states for a field. */
export function readBlocks($: CheerioAPI, item: ObjectNode, hints: NameHints, known: (field: string) => string[]): Item[] | undefined {
  const fields = fieldsOf(item);
  const arrayWords = hints.subject.map(singular);
  const elements = elementsUnder($.root()[0]!, MAX_ELEMENTS);
  const candidates = [...siblingBlocks(elements, fields, arrayWords), ...tableRows($, elements, fields, arrayWords), ...groupedLists($, elements, fields, arrayWords, known)];
  let best: Scored<Item[]> | undefined;
  for (const candidate of candidates) {
    if (!best || candidate.confidence > best.confidence || (candidate.confidence === best.confidence && filled(candidate.value) > filled(best.value))) best = candidate;
  }
  return best && best.confidence >= MIN_CONFIDENCE ? best.value : undefined;
}

function fieldsOf(item: ObjectNode): Field[] {
  return item.fields.map(({ name, node }) => {
    const subject = nameHints(name).subject.map(singular);
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
 * Children of one parent with the same tag and classes, each a block, where
 * the markup names the array: the parent's words or the words the blocks
 * share ("reviews" around "review", "ingredient-group"). An id names one
 * block, not the list, so only shared words count; and a block too large to
 * be one item is a part of the page's layout.
 */
function siblingBlocks(elements: Element[], fields: Field[], arrayWords: string[]): Scored<Item[]>[] {
  const groups = new Map<ParentNode, Map<string, Element[]>>();
  for (const element of elements) {
    if (!element.parent) continue;
    const bySignature = groups.get(element.parent) ?? new Map<string, Element[]>();
    groups.set(element.parent, bySignature);
    const signature = signatureOf(element);
    const blocks = bySignature.get(signature) ?? [];
    bySignature.set(signature, blocks);
    if (blocks.length < MAX_BLOCKS) blocks.push(element);
  }
  const candidates: Scored<Item[]>[] = [];
  for (const [parent, bySignature] of groups) {
    for (const blocks of bySignature.values()) {
      if (blocks.length < 2 || candidates.length >= MAX_CANDIDATES || !namesArray(blockWords(parent, blocks), arrayWords)) continue;
      if (elementsUnder(blocks[0]!, MAX_BLOCK_ELEMENTS + 1).length > MAX_BLOCK_ELEMENTS) continue;
      candidates.push(scored(blocks.map((block) => fillBlock(block, fields)), fields, true));
    }
  }
  return candidates;
}

/** The words of the blocks' parent and those all the blocks share. */
function blockWords(parent: ParentNode, blocks: Element[]): Set<string> {
  const shared = blocks.map(markupWords).reduce((common, markup) => new Set([...common].filter((word) => markup.has(word))));
  return new Set([...(isTag(parent) ? markupWords(parent) : []), ...shared]);
}

/** Whether markup words name the array: all of its words ("ingredient_groups" in "ingredient-group"). */
function namesArray(context: Set<string>, arrayWords: string[]): boolean {
  return arrayWords.length > 0 && arrayWords.every((word) => context.has(word));
}

/** Tag and classes; classes with digits are left out, as they number the blocks ("review-3") rather than say what they are. */
function signatureOf(element: Element): string {
  const classes = (element.attribs.class ?? "").split(/\s+/).filter((c) => c.length > 0 && !/\d/.test(c));
  return [element.tagName, ...classes.sort()].join(" ");
}

interface Found {
  value: unknown;
  /** Whether it is the block's heading, for want of an element named for the field: weaker evidence. */
  fromHeading: boolean;
}

function fillBlock(block: Element, fields: Field[]): Map<string, Found> {
  const inside = elementsUnder(block, MAX_BLOCK_ELEMENTS);
  const found = new Map<string, Found>();
  for (const field of fields) {
    if (field.isList) {
      const items = inside.filter((e) => e.tagName === "li").map(textOf).filter((text) => text.length > 0);
      if (items.length > 0) found.set(field.name, { value: items, fromHeading: false });
      continue;
    }
    const element = namedElement(inside, field);
    const value = element ? readValue(element, field) : undefined;
    if (value !== undefined) found.set(field.name, { value, fromHeading: false });
    else if (field.isHeading) {
      const heading = inside.find((e) => isHeading(e) || (e.parent === block && (e.tagName === "strong" || e.tagName === "b")));
      const text = heading ? textOf(heading) : "";
      if (text && text.length <= MAX_HEADING_CHARS) found.set(field.name, { value: text, fromHeading: true });
    }
  }
  return found;
}

/** The element named for the field with the fewest other words ("review-author" before "review-author-avatar"), first on a tie. */
function namedElement(elements: Element[], field: Field): Element | undefined {
  let best: Element | undefined;
  let fewest = Infinity;
  for (const element of elements) {
    const markup = markupWords(element);
    if (!names(markup, field)) continue;
    const others = markup.size - Math.min(...field.names.map((n) => n.length));
    if (others < fewest) [best, fewest] = [element, others];
  }
  return best;
}

/**
 * The candidate's items and its confidence: its evidence, lowered for the
 * fields that most blocks leave empty. Where the markup names the array,
 * some field must be found in most blocks other than as their heading (a
 * "product" section of headings is no product list); else every field must
 * be, again and again (a table's columns). A heading-filled field holds when
 * some block has one: a first group often has no heading.
 */
function scored(blocks: Map<string, Found>[], fields: Field[], arrayNamed: boolean): Scored<Item[]> {
  const most = (count: number) => count >= 2 && count * 2 >= blocks.length;
  const held = fields.filter((field) => {
    const count = blocks.filter((block) => block.has(field.name)).length;
    return field.isHeading ? count > 0 : most(count);
  });
  const solid = fields.filter((field) => most(blocks.filter((block) => block.get(field.name)?.fromHeading === false).length)).length;
  const evidence = arrayNamed ? (solid > 0 ? EVIDENCE.arrayName : 0) : solid >= 2 && solid === fields.length ? EVIDENCE.fieldNames : 0;
  const items = blocks.filter((block) => block.size > 0).map((block) => Object.fromEntries(fields.map((field) => [field.name, block.get(field.name)?.value ?? null])));
  return { value: items, confidence: evidence * (0.5 + (0.5 * held.length) / Math.max(fields.length, 1)) };
}

/** Rows of a table whose header row (th cells, or a thead row) names the fields' columns. */
function tableRows($: CheerioAPI, elements: Element[], fields: Field[], arrayWords: string[]): Scored<Item[]>[] {
  return elements
    .filter((e) => e.tagName === "table")
    .slice(0, MAX_CANDIDATES)
    .flatMap((table) => {
      const [first, ...rows] = $(table).find("tr").toArray().slice(0, MAX_BLOCKS + 1);
      const header = first ? $(first).children("th, td") : undefined;
      const isHeader = header !== undefined && header.length >= 2 && (header.is("th") || $(first!).closest("thead").length > 0);
      if (!isHeader || rows.length === 0) return [];
      const columns = header.toArray().map((cell) => new Set(words(textOf(cell))));
      const caption = $(table).children("caption").toArray().flatMap((element) => words(textOf(element)));
      const blocks = rows.map((row) => {
        const cells = $(row).children("th, td").toArray();
        const found = new Map<string, Found>();
        for (const field of fields) {
          const cell = cells[columns.findIndex((column) => names(column, field))];
          const value = cell && (field.isList ? listOf($, cell) : readValue(cell, field));
          if (value !== undefined) found.set(field.name, { value, fromHeading: false });
        }
        return found;
      });
      return [scored(blocks, fields, namesArray(new Set([...markupWords(table), ...caption]), arrayWords))];
    });
}

/** The texts of a cell's list items or links, else its text. */
function listOf($: CheerioAPI, cell: Element): string[] | undefined {
  const parts = $(cell).find("li, a").toArray().map(textOf).filter((text) => text.length > 0);
  const text = textOf(cell);
  return parts.length > 0 ? parts : text ? [text] : undefined;
}

/**
 * Groups of an array named for its items' list field (`ingredient_groups`
 * holding `ingredients`), when the structured data states that list flat:
 * the page's lists whose items it names, grouped by the headings before and
 * among them.
 */
function groupedLists($: CheerioAPI, elements: Element[], fields: Field[], arrayWords: string[], known: (field: string) => string[]): Scored<Item[]>[] {
  const listField = fields.find((field) => field.isList && field.names[0]!.every((word) => arrayWords.includes(word)));
  const values = listField ? known(listField.name).map(words).filter((v) => v.length > 0) : [];
  if (!listField || values.length === 0) return [];
  // The known value most like the text ("2 cups milk" is a little like "2 cups flour"), or -1.
  const knownIndex = (text: string) => {
    const itemWords = words(text);
    const scores = values.map((value) => likeness(value, itemWords));
    const best = Math.max(...scores);
    return best >= MIN_LIKENESS ? scores.indexOf(best) : -1;
  };
  // Lists most of whose items are known values, with the values each holds.
  const lists = new Map<Element, Set<number>>();
  for (const list of elements.filter((e) => e.tagName === "ul" || e.tagName === "ol")) {
    const indexes = $(list).children("li").toArray().map((li) => knownIndex(textOf(li)));
    const matched = indexes.filter((i) => i >= 0);
    if (matched.length > 0 && matched.length * 2 >= indexes.length) lists.set(list, new Set(matched));
  }
  const region = regionOf([...lists.keys()], (inside) => new Set(inside.flatMap((list) => [...lists.get(list)!])).size >= MIN_COVERAGE * values.length);
  if (!region) return [];
  const groups = headedGroups($, region, new Set(lists.keys()), (li, text) => knownIndex(text) < 0 && isHeadingItem(li), listField.names[0]!);
  const headingField = fields.find((field) => field.isHeading);
  const items = groups.map((group) => Object.fromEntries(fields.map((field) => [field.name, field === listField ? group.items : field === headingField ? (group.heading ?? null) : null])));
  return [{ value: items, confidence: EVIDENCE.knownValues }];
}

/**
 * The items of the lists in a region, in page order, grouped by headings: a
 * short text outside the lists (or a heading item within one) starts a new
 * group and names it, unless it only names the list ("Ingredients": the
 * section's title, not a group's name); longer text between a heading and
 * the items parts them.
 */
function headedGroups($: CheerioAPI, region: Element, lists: Set<Element>, headsItems: (li: Element, text: string) => boolean, listWords: string[]): { heading: string | undefined; items: string[] }[] {
  const onPath = new Set([...lists].filter((list) => contains(region, list)).flatMap((list) => ancestorsUpTo(list, region)));
  const groups: { heading: string | undefined; items: string[] }[] = [];
  let heading: string | undefined;
  let startsGroup = true;
  const setHeading = (text: string) => {
    heading = sameWords(words(text), listWords) ? undefined : text;
    startsGroup = true;
  };
  const visit = (element: Element): void => {
    if (lists.has(element)) {
      for (const li of $(element).children("li").toArray()) {
        const text = textOf(li);
        if (headsItems(li, text)) setHeading(text);
        else if (text) {
          if (startsGroup) groups.push({ heading, items: [] });
          groups.at(-1)!.items.push(text);
          heading = undefined;
          startsGroup = false;
        }
      }
    } else if (onPath.has(element)) element.children.filter(isTag).forEach(visit);
    else if (!NOT_TEXT.has(element.tagName)) {
      const text = textOf(element);
      if (text && text.length <= MAX_HEADING_CHARS && !LIST_TAGS.has(element.tagName) && $(element).find("li").length === 0) setHeading(text);
      else if (text) heading = undefined;
    }
  };
  visit(region);
  return groups;
}

/** A list item that heads the items after it: it holds a heading element, or its markup says heading or title. */
function isHeadingItem(li: Element): boolean {
  return [li, ...elementsUnder(li, 20)].some(isHeading);
}

function isHeading(element: Element): boolean {
  return HEADING_TAGS.has(element.tagName) || [...markupWords(element)].some((word) => HEADING_WORDS.has(word));
}

/** Word overlap of two texts (Dice): "1 tbsp lemon juice" and "1 tablespoon lemon juice" are alike. */
function likeness(a: string[], b: string[]): number {
  const counts = new Map<string, number>();
  for (const word of a) counts.set(word, (counts.get(word) ?? 0) + 1);
  let common = 0;
  for (const word of b) {
    const left = counts.get(word) ?? 0;
    if (left === 0) continue;
    common += 1;
    counts.set(word, left - 1);
  }
  return a.length + b.length > 0 ? (2 * common) / (a.length + b.length) : 0;
}

/**
 * A value of the field's type from an element: for numbers, the first of
 * its content, text, labelling attributes and data attributes named for the
 * field ("data-rating") that reads as one.
 */
function readValue(element: Element, field: Field): unknown {
  if (field.node.kind !== "scalar") return undefined;
  const text = textOf(element);
  if (field.node.type !== "number" && field.node.type !== "integer") return text || undefined;
  const { attribs } = element;
  const data = Object.entries(attribs).filter(([key]) => key.startsWith("data-") && names(new Set(nameTokens(key).map(singular)), field));
  for (const written of [attribs.content, text, attribs["aria-label"], attribs.title, ...data.map(([, value]) => value)]) {
    const number = written ? (parseNumber(written) ?? (written.length <= 30 ? firstNumber(written) : undefined)) : undefined;
    if (number !== undefined) return number;
  }
  return undefined;
}

/** The words an element's markup names it by: class, id, itemprop and the names of data attributes, split like field names, singular. */
function markupWords(element: Element): Set<string> {
  const { attribs } = element;
  const dataNames = Object.keys(attribs).filter((key) => key.startsWith("data-")).map((key) => key.slice(5));
  return new Set(nameTokens([attribs.class, attribs.id, attribs.itemprop, ...dataNames].filter(Boolean).join(" ")).map(singular));
}

function names(markup: Set<string>, field: Field): boolean {
  return field.names.some((name) => name.every((word) => markup.has(word)));
}

function sameWords(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((word) => b.includes(word));
}

function filled(items: Item[]): number {
  return items.reduce((sum, item) => sum + Object.values(item).filter((value) => value !== null).length, 0);
}


/**
 * Lists grouped under headings, located by the values structured data
 * states flat (a recipe's ingredients found in the page's lists, grouped by
 * the headings between them).
 */
import type { CheerioAPI } from "cheerio";
import { type Element, isTag } from "domhandler";
import { ancestorsUpTo, contains, elementsUnder, NOT_TEXT, regionOf, textOf } from "../../../page/elements.js";
import { words } from "../match.js";
import { type Blocks, EVIDENCE, type Field, type Found, isHeading, MAX_HEADING_CHARS } from "./fields.js";

/** Elements that hold items, never a heading. */
const LIST_TAGS = new Set(["ul", "ol", "li", "table"]);

/** Share of the known values a group of lists must hold, and how alike an item's words and a known value's must be. */
const MIN_COVERAGE = 0.8;
const MIN_LIKENESS = 0.6;

/**
 * Groups of an array named for its items' list field (`ingredient_groups`
 * holding `ingredients`), when the structured data states that list flat:
 * the page's lists whose items it names, grouped by the headings before and
 * among them.
 */
export function groupedLists(
  $: CheerioAPI,
  elements: Element[],
  fields: Field[],
  arrayWords: string[],
  known: (field: string) => string[],
): Blocks[] {
  const listField = fields.find((field) => field.isList && field.names[0]!.every((word) => arrayWords.includes(word)));
  const values = listField
    ? known(listField.name)
        .map(words)
        .filter((v) => v.length > 0)
    : [];
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
    const indexes = $(list)
      .children("li")
      .toArray()
      .map((li) => knownIndex(textOf(li)));
    const matched = indexes.filter((i) => i >= 0);
    if (matched.length > 0 && matched.length * 2 >= indexes.length) lists.set(list, new Set(matched));
  }
  const region = regionOf(
    [...lists.keys()],
    (inside) => new Set(inside.flatMap((list) => [...lists.get(list)!])).size >= MIN_COVERAGE * values.length,
  );
  if (!region) return [];
  const groups = headedGroups(
    $,
    region,
    new Set(lists.keys()),
    (li, text) => knownIndex(text) < 0 && isHeadingItem(li),
    listField.names[0]!,
  );
  const headingField = fields.find((field) => field.isHeading);
  const items = groups.map((group) =>
    Object.fromEntries(
      fields.map((field) => [
        field.name,
        field === listField ? group.items : field === headingField ? (group.heading?.text ?? null) : null,
      ]),
    ),
  );
  const found = groups.map((group) => {
    const read = new Map<string, Found>([
      [listField.name, { value: group.items, fromHeading: false, element: region, items: group.elements }],
    ]);
    if (headingField && group.heading)
      read.set(headingField.name, { value: group.heading.text, fromHeading: true, element: group.heading.element });
    return read;
  });
  return [{ value: items, confidence: EVIDENCE.knownValues, found }];
}

/**
 * The items of the lists in a region, in page order, grouped by headings: a
 * short text outside the lists (or a heading item within one) starts a new
 * group and names it, unless it only names the list ("Ingredients": the
 * section's title, not a group's name); longer text between a heading and
 * the items parts them.
 */
function headedGroups(
  $: CheerioAPI,
  region: Element,
  lists: Set<Element>,
  headsItems: (li: Element, text: string) => boolean,
  listWords: string[],
): Group[] {
  const onPath = new Set(
    [...lists].filter((list) => contains(region, list)).flatMap((list) => ancestorsUpTo(list, region)),
  );
  const groups: Group[] = [];
  let heading: Group["heading"];
  let startsGroup = true;
  const setHeading = (text: string, element: Element) => {
    heading = sameWords(words(text), listWords) ? undefined : { text, element };
    startsGroup = true;
  };
  const visit = (element: Element): void => {
    if (lists.has(element)) {
      for (const li of $(element).children("li").toArray()) {
        const text = textOf(li);
        if (headsItems(li, text)) setHeading(text, li);
        else if (text) {
          if (startsGroup) groups.push({ heading, items: [], elements: [] });
          groups.at(-1)!.items.push(text);
          groups.at(-1)!.elements.push(li);
          heading = undefined;
          startsGroup = false;
        }
      }
    } else if (onPath.has(element)) element.children.filter(isTag).forEach(visit);
    else if (!NOT_TEXT.has(element.tagName)) {
      const text = textOf(element);
      if (
        text &&
        text.length <= MAX_HEADING_CHARS &&
        !LIST_TAGS.has(element.tagName) &&
        $(element).find("li").length === 0
      )
        setHeading(text, element);
      else if (text) heading = undefined;
    }
  };
  visit(region);
  return groups;
}

/** A group of list items under a heading: the items' texts and elements. */
interface Group {
  heading: { text: string; element: Element } | undefined;
  items: string[];
  elements: Element[];
}

/** A list item that heads the items after it: it holds a heading element, or its markup says heading or title. */
function isHeadingItem(li: Element): boolean {
  return [li, ...elementsUnder(li, 20)].some(isHeading);
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

function sameWords(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((word) => b.includes(word));
}

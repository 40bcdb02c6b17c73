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
import type { ObjectNode } from "@winnow/platform";
import type { CheerioAPI } from "cheerio";
import { elementsUnder, textOf } from "../../../page/elements.js";
import { childPointer, type EvidenceTrail } from "../../../schema/evidence.js";
import type { NameHints } from "../../../schema/field-names.js";
import { MIN_CONFIDENCE, singular } from "../match.js";
import { type Blocks, fieldsOf, type Item } from "./fields.js";
import { groupedLists } from "./headed-lists.js";
import { siblingBlocks } from "./siblings.js";
import { tableRows } from "./tables.js";

/** Bounds the elements walked, so that a page of any size stays cheap. */
const MAX_ELEMENTS = 10_000;

/**
 * The items of the array, or undefined when no candidate reaches MIN_CONFIDENCE. `known` gives the texts structured
 * data states for a field.
 */
export function readBlocks(
  $: CheerioAPI,
  item: ObjectNode,
  hints: NameHints,
  known: (field: string) => string[],
  trail?: EvidenceTrail,
  pointer = "",
): Item[] | undefined {
  const fields = fieldsOf(item);
  const arrayWords = hints.subject.map(singular);
  const elements = elementsUnder($.root()[0]!, MAX_ELEMENTS);
  const candidates = [
    ...siblingBlocks(elements, fields, arrayWords),
    ...tableRows($, elements, fields, arrayWords),
    ...groupedLists($, elements, fields, arrayWords, known),
  ];
  let best: Blocks | undefined;
  for (const candidate of candidates) {
    if (
      !best ||
      candidate.confidence > best.confidence ||
      (candidate.confidence === best.confidence && filled(candidate.value) > filled(best.value))
    )
      best = candidate;
  }
  if (!best || best.confidence < MIN_CONFIDENCE) return undefined;
  if (trail) noteBlocks(best, trail, pointer);
  return best.value;
}

/** Each item's values' evidence: the element each was read from, and its text. */
function noteBlocks(blocks: Blocks, trail: EvidenceTrail, pointer: string): void {
  blocks.found.forEach((fields, index) => {
    for (const [name, found] of fields) {
      const at = childPointer(childPointer(pointer, index), name);
      if (found.items)
        found.items.forEach((element, item) =>
          trail.note(childPointer(at, item), { source: "layout", text: textOf(element), element }, blocks.confidence),
        );
      else if (found.element)
        trail.note(at, { source: "layout", text: textOf(found.element), element: found.element }, blocks.confidence);
    }
  });
}

function filled(items: Item[]): number {
  return items.reduce((sum, item) => sum + Object.values(item).filter((value) => value !== null).length, 0);
}

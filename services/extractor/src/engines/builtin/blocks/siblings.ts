/**
 * Repeated sibling blocks: children of one parent with the same tag and
 * classes, each an item (a review list, ingredient groups).
 */
import { type Element, isTag, type ParentNode } from "domhandler";
import { elementsUnder, textOf } from "../../../page/elements.js";
import {
  type Blocks,
  type Field,
  type Found,
  isHeading,
  MAX_BLOCK_ELEMENTS,
  MAX_BLOCKS,
  MAX_CANDIDATES,
  MAX_HEADING_CHARS,
  markupWords,
  names,
  namesArray,
  readValue,
  scored,
} from "./fields.js";

/**
 * Children of one parent with the same tag and classes, each a block, where
 * the markup names the array: the parent's words or the words the blocks
 * share ("reviews" around "review", "ingredient-group"). An id names one
 * block, not the list, so only shared words count; and a block too large to
 * be one item is a part of the page's layout.
 */
export function siblingBlocks(elements: Element[], fields: Field[], arrayWords: string[]): Blocks[] {
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
  const candidates: Blocks[] = [];
  for (const [parent, bySignature] of groups) {
    for (const blocks of bySignature.values()) {
      if (
        blocks.length < 2 ||
        candidates.length >= MAX_CANDIDATES ||
        !namesArray(blockWords(parent, blocks), arrayWords)
      )
        continue;
      if (elementsUnder(blocks[0]!, MAX_BLOCK_ELEMENTS + 1).length > MAX_BLOCK_ELEMENTS) continue;
      candidates.push(
        scored(
          blocks.map((block) => fillBlock(block, fields)),
          fields,
          true,
        ),
      );
    }
  }
  return candidates;
}

/** The words of the blocks' parent and those all the blocks share. */
function blockWords(parent: ParentNode, blocks: Element[]): Set<string> {
  const shared = blocks
    .map(markupWords)
    // biome-ignore lint/performance/noAccumulatingSpread: a set intersection; each step only shrinks the set.
    .reduce((common, markup) => new Set([...common].filter((word) => markup.has(word))));
  return new Set([...(isTag(parent) ? markupWords(parent) : []), ...shared]);
}

/**
 * Tag and classes; classes with digits are left out, as they number the blocks ("review-3") rather than say what they
 * are.
 */
function signatureOf(element: Element): string {
  const classes = (element.attribs.class ?? "").split(/\s+/).filter((c) => c.length > 0 && !/\d/.test(c));
  return [element.tagName, ...classes.sort()].join(" ");
}

function fillBlock(block: Element, fields: Field[]): Map<string, Found> {
  const inside = elementsUnder(block, MAX_BLOCK_ELEMENTS);
  const found = new Map<string, Found>();
  for (const field of fields) {
    if (field.isList) {
      const items = inside.filter((e) => e.tagName === "li" && textOf(e).length > 0);
      if (items.length > 0)
        found.set(field.name, { value: items.map(textOf), fromHeading: false, element: block, items });
      continue;
    }
    const element = namedElement(inside, field);
    const value = element ? readValue(element, field) : undefined;
    if (value !== undefined) found.set(field.name, { value, fromHeading: false, element });
    else if (field.isHeading) {
      const heading = inside.find(
        (e) => isHeading(e) || (e.parent === block && (e.tagName === "strong" || e.tagName === "b")),
      );
      const text = heading ? textOf(heading) : "";
      if (text && text.length <= MAX_HEADING_CHARS)
        found.set(field.name, { value: text, fromHeading: true, element: heading });
    }
  }
  return found;
}

/**
 * The element named for the field with the fewest other words ("review-author" before "review-author-avatar"), first on
 * a tie.
 */
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

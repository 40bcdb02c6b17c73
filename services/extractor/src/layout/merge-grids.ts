/**
 * Lists in places that repeat are one list: a grid's rows, and the parts of a list
 * split across a page's sections (record segmentation's last step, segment.ts).
 */
import { type Element, isTag } from "domhandler";
import { classesOf } from "./element-facts.js";

/**
 * Lists in places that repeat are one list, their records in page order:
 * the rows of a grid (parents that are alike siblings, each holding a few
 * cells), and the sections of a page that each hold a part of it (a shelf
 * per category, results under each day), up to a few levels apart.
 */
export function mergeGrids(
  found: { parent: Element; group: number; records: Element[][]; alone: boolean }[],
  groupOf: Map<Element, number>,
  alike: (a: Element, b: Element) => boolean,
): { container: Element; records: Element[][] }[] {
  // The places each list already takes a part from, as a set: a list of thousands of parts asks it for each new one.
  type Merged = { container: Element; records: Element[][]; parents: Set<Element>; repeated: Set<Element> };
  const merged: Merged[] = [];
  const byPlace = new Map<string, Merged[]>();
  for (const { parent, records, alone } of found) {
    // A lone child in each of a list's records is a wrapper of its record, not a row of a grid.
    const place = alone ? undefined : repeatedPlace(parent, groupOf);
    const lists = place ? (byPlace.get(place.key) ?? []) : undefined;
    const same = lists?.find(
      (list) =>
        !list.parents.has(parent) &&
        !list.repeated.has(place!.ancestor) &&
        alike(list.records[0]![0]!, records[0]![0]!),
    );
    if (same) {
      same.container = commonAncestor(same.container, parent);
      same.records.push(...records);
      same.parents.add(parent);
      same.repeated.add(place!.ancestor);
      continue;
    }
    const list: Merged = {
      container: parent,
      records: [...records],
      parents: new Set([parent]),
      repeated: new Set(place ? [place.ancestor] : []),
    };
    merged.push(list);
    if (place) byPlace.set(place.key, [...(lists ?? []), list]);
  }
  return merged;
}

/** Levels above a list's parent searched for a place that repeats. */
const MAX_MERGE_LEVELS = 3;

/**
 * The nearest ancestor (the parent itself, or up to a few levels above it)
 * that is one of a group of alike siblings, and the path from it down to
 * the parent: lists at the same path under alike siblings are parts of one.
 */
function repeatedPlace(parent: Element, groupOf: Map<Element, number>): { key: string; ancestor: Element } | undefined {
  const steps: string[] = [];
  let node: Element = parent;
  for (let level = 0; level < MAX_MERGE_LEVELS; level += 1) {
    const group = groupOf.get(node);
    if (group !== undefined && node.parent && isTag(node.parent) && hasSiblingsIn(node, group, groupOf))
      return { key: `${group} ${steps.join("/")}`, ancestor: node };
    steps.unshift(`${node.tagName}.${[...classesOf(node)].sort().join(".")}`);
    if (!node.parent || !isTag(node.parent)) return undefined;
    node = node.parent;
  }
  return undefined;
}

function hasSiblingsIn(node: Element, group: number, groupOf: Map<Element, number>): boolean {
  for (const sibling of node.parent?.children ?? [])
    if (sibling !== node && isTag(sibling) && groupOf.get(sibling) === group) return true;
  return false;
}

function commonAncestor(a: Element, b: Element): Element {
  const above = new Set<Element>();
  for (let node: Element | null = a; node && isTag(node); node = node.parent as Element | null) above.add(node);
  for (let node: Element | null = b; node && isTag(node); node = node.parent as Element | null)
    if (above.has(node)) return node;
  return a;
}

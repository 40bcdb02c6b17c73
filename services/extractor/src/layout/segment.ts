/**
 * Record segmentation: a listing page's repeated records, found without a
 * model. The children of one parent that look alike (the same tag, similar
 * classes, and a similar structure below them: the tag paths of their first
 * levels) are a candidate list when they repeat. A record is one such
 * element, or one with the siblings that follow it every time (a title row
 * and a details row in a table). Rows of a grid, whose parents themselves
 * look alike, make one list. Each candidate carries what choosing the main
 * list needs: how much text its records hold, how much of it is link text,
 * and whether it sits in the page's navigation, header, footer or a side box.
 *
 * Every element is compared with the first member of a few groups of its
 * siblings, and its structure is read once to a bounded depth and breadth,
 * so a page costs time in proportion to its size.
 */
import { type Element, isTag, type ParentNode } from "domhandler";
import { NOT_TEXT } from "../page/elements.js";
import { inBoilerplate, markupTokens } from "./boilerplate.js";
import { classesOf } from "./element-facts.js";
import { isUnseen } from "./hidden.js";
import { mergeGrids } from "./merge-grids.js";
import { isHeaderRow } from "./table-header.js";

export interface RecordList {
  /** The element the records are children of; for a grid, the parent of its rows. */
  container: Element;
  /** Each record: its head element and the siblings that follow it as parts of the same record, in page order. */
  records: Element[][];
  /** Visible characters in the records, and how many of them are link text. */
  text: number;
  linkText: number;
  /** Whether the list sits in the page's navigation, header, footer, a side box or a pager. */
  boilerplate: boolean;
}

/**
 * Bounds: sibling groups compared per element, the breadth and depth of a structure read. The page's elements are
 * all walked (its size is bounded by EXTRACT_MAX_HTML_BYTES): the work is linear in them, and a bound here would
 * cut a long list short without saying so.
 */
const MAX_GROUPS = 12;
const SHAPE_DEPTH = 4;
const SHAPE_PATHS = 48;
/** How alike two siblings must be, their classes weighed against their structure. */
const ALIKE = 0.55;
const CLASS_WEIGHT = 0.35;
/** Siblings with the same classes need only this much of their structure in common. */
const SAME_CLASSES_STRUCTURE = 0.15;
/** A list whose records have more elements than this (the median) is a part of the page's layout. */
const MAX_RECORD_SIZE = 1000;
/** Siblings that follow a record's head in this share of the gaps between heads are parts of the record; at most this many. */
const COMPANION_SHARE = 0.6;
const MAX_COMPANIONS = 3;

/** Containers whose only child may be a list of one record. */
const LIST_TAGS = new Set(["ul", "ol", "tbody", "table", "dl"]);
const LIST_WORDS = new Set(["list", "listing", "listings", "results", "items", "feed", "grid"]);
/**
 * Each shown element's counts, by its place in page order: numbers in arrays, not an object per element of the page
 * (garbage that lived as long as segmentation did).
 */
interface Facts {
  /** Each shown element's place in page order. */
  at: Map<Element, number>;
  /** Visible characters (whitespace not counted) in the element, and in links within it. */
  text: Uint32Array;
  linkText: Uint32Array;
  /** Elements in it, itself included. */
  size: Uint32Array;
}

/** Every candidate list of the page, each record's elements in page order. */
export function segmentRecords(root: ParentNode): RecordList[] {
  const { facts, parents } = readFacts(root);
  const shapes = new Map<Element, Set<number>>();
  const paths = new TagPaths();
  const shapeOf = (element: Element) => {
    let shape = shapes.get(element);
    if (!shape) {
      shape = readShape(element, paths);
      shapes.set(element, shape);
    }
    return shape;
  };
  const alike = (a: Element, b: Element) => a.tagName === b.tagName && likeness(a, b, shapeOf) >= ALIKE;

  /** Each element's group among its siblings, for grids: rows alike are one group. */
  const groupOf = new Map<Element, number>();
  let groups = 0;
  const found: { parent: Element; group: number; records: Element[][]; alone: boolean }[] = [];
  for (const parent of parents) {
    const children = visibleChildren(parent, facts);
    const clusters: { head: Element; members: number[] }[] = [];
    const labels = children.map((child, index) => {
      let cluster = -1;
      for (let i = clusters.length - 1, tried = 0; i >= 0 && tried < MAX_GROUPS && cluster < 0; i -= 1) {
        if (clusters[i]!.head.tagName !== child.tagName) continue;
        tried += 1;
        if (alike(clusters[i]!.head, child)) cluster = i;
      }
      if (cluster < 0) {
        cluster = clusters.length;
        clusters.push({ head: child, members: [] });
      }
      clusters[cluster]!.members.push(index);
      return cluster;
    });
    const base = groups;
    groups += clusters.length;
    children.forEach((child, index) => groupOf.set(child, base + labels[index]!));
    clusters.forEach((cluster, label) => {
      const repeated = cluster.members.length >= 2;
      const alone = children.length === 1 && isListContainer(parent);
      if (!repeated && !alone) return;
      const records = withCompanions(children, labels, label, cluster.members);
      const shows = (list: Element[][]) =>
        list.some((record) => record.some((element) => facts.text[facts.at.get(element)!]! > 0));
      if (shows(records)) found.push({ parent, group: base + label, records, alone: !repeated });
      // Rows alike in shape but not in classes, in turn (a title row, then its details row): each turn may be one record.
      const split = inTurns(children, labels, label, cluster.members);
      if (split && shows(split)) found.push({ parent, group: base + label, records: split, alone: false });
    });
  }
  return mergeGrids(found, groupOf, alike).flatMap(({ container, records }) => {
    let text = 0;
    let linkText = 0;
    const sizes: number[] = [];
    for (const record of records) {
      let size = 0;
      for (const element of record) {
        const at = facts.at.get(element)!;
        text += facts.text[at]!;
        linkText += facts.linkText[at]!;
        size += facts.size[at]!;
      }
      sizes.push(size);
    }
    // Records this large are parts of the page's layout (its columns, its halves), not items.
    if (median(sizes) > MAX_RECORD_SIZE) return [];
    return [{ container, records, text, linkText, boilerplate: inBoilerplate(container) }];
  });
}

export function classKey(element: Element): string {
  return [...classesOf(element)].sort().join(" ");
}

/** The shown elements' facts, read bottom-up, and the elements that have shown element children (the possible list parents), in document order. */
function readFacts(root: ParentNode): { facts: Facts; parents: Element[] } {
  const order: Element[] = [];
  const at = new Map<Element, number>();
  const stack: Element[] = root.children.filter(isTag).reverse();
  while (stack.length > 0) {
    const element = stack.pop()!;
    if (NOT_TEXT.has(element.tagName) || isUnseen(element)) continue;
    at.set(element, order.length);
    order.push(element);
    for (let i = element.children.length - 1; i >= 0; i -= 1) {
      const child = element.children[i]!;
      if (isTag(child)) stack.push(child);
    }
  }
  const facts: Facts = {
    at,
    text: new Uint32Array(order.length),
    linkText: new Uint32Array(order.length),
    size: new Uint32Array(order.length),
  };
  // A child comes after its parent in page order: from the last, each element's children are counted before it.
  for (let i = order.length - 1; i >= 0; i -= 1) {
    const element = order[i]!;
    let text = 0;
    let linkText = 0;
    let size = 1;
    for (const child of element.children) {
      if (child.type === "text") text += visibleLength(child.data);
      else if (isTag(child)) {
        const inner = at.get(child);
        if (inner !== undefined) {
          text += facts.text[inner]!;
          linkText += facts.linkText[inner]!;
          size += facts.size[inner]!;
        }
      }
    }
    facts.text[i] = text;
    facts.linkText[i] = element.tagName === "a" ? text : linkText;
    facts.size[i] = size;
  }
  const parents = order.filter((element) => element.children.some((child) => isTag(child) && at.has(child)));
  return { facts, parents };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** How much text a text node shows: its length without the whitespace around it (the indentation of the markup). */
function visibleLength(text: string): number {
  return text.trim().length;
}

/** The children a list is made of: shown elements, a table's header row left out (it names the columns). */
function visibleChildren(parent: Element, facts: Facts): Element[] {
  return parent.children.filter(
    (child): child is Element => isTag(child) && facts.at.has(child) && !isHeaderRow(child),
  );
}

/**
 * Tag paths as numbers, each path numbered once per page: shapes only compare their paths, and a path written out
 * as a string for each element (several per element of a large page) was much of segmentation's garbage.
 */
class TagPaths {
  private readonly below = new Map<number, Map<string, number>>();
  /** 0 is the element's own place. */
  private numbered = 1;

  child(path: number, tag: string): number {
    let byTag = this.below.get(path);
    if (!byTag) {
      byTag = new Map();
      this.below.set(path, byTag);
    }
    let id = byTag.get(tag);
    if (id === undefined) {
      id = this.numbered++;
      byTag.set(tag, id);
    }
    return id;
  }
}

/** Tag paths below an element, a few levels deep and a bounded number of them: its structure, for comparing siblings. */
function readShape(element: Element, paths: TagPaths): Set<number> {
  const shape = new Set<number>();
  let level: { node: Element; path: number }[] = [{ node: element, path: 0 }];
  for (let depth = 0; depth < SHAPE_DEPTH && level.length > 0 && shape.size < SHAPE_PATHS; depth += 1) {
    const next: { node: Element; path: number }[] = [];
    for (const { node, path } of level) {
      for (const child of node.children) {
        if (!isTag(child) || NOT_TEXT.has(child.tagName)) continue;
        const childPath = paths.child(path, child.tagName);
        shape.add(childPath);
        if (shape.size >= SHAPE_PATHS) return shape;
        next.push({ node: child, path: childPath });
      }
    }
    level = next;
  }
  return shape;
}

/** How alike two elements of the same tag are: their classes (those that do not number them) and their structure. */
function likeness(a: Element, b: Element, shapeOf: (element: Element) => Set<number>): number {
  const [classesA, classesB] = [classesOf(a), classesOf(b)];
  const classes = jaccard(classesA, classesB);
  const structure = jaccard(shapeOf(a), shapeOf(b));
  // The same classes, named by the page, say the same kind of record even where the contents differ (a result with sitelinks).
  if (classes === 1 && classesA.size > 0) return structure >= SAME_CLASSES_STRUCTURE ? 1 : 0;
  return CLASS_WEIGHT * classes + (1 - CLASS_WEIGHT) * structure;
}

function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let common = 0;
  for (const item of a) if (b.has(item)) common += 1;
  return common / (a.size + b.size - common);
}

/**
 * The records of a group of siblings: each member, with the siblings that
 * follow it as regularly as it repeats (a title row followed by its details
 * row and a spacer: the record is the three). A group whose regular
 * followers include one that comes before its first member is not the head
 * of the record: it is itself a follower.
 */
function withCompanions(children: Element[], labels: number[], label: number, members: number[]): Element[][] {
  if (members.length < 2) return members.map((index) => [children[index]!]);
  const gaps = members.map((index, i) => ({ from: index + 1, to: members[i + 1] ?? children.length }));
  const companions: number[] = [];
  for (let offset = 0; offset < MAX_COMPANIONS; offset += 1) {
    const counts = new Map<number, number>();
    for (const { from, to } of gaps) {
      if (from + offset < to) counts.set(labels[from + offset]!, (counts.get(labels[from + offset]!) ?? 0) + 1);
    }
    const [best, count] = [...counts].sort((x, y) => y[1] - x[1])[0] ?? [undefined, 0];
    if (best === undefined || best === label || count < COMPANION_SHARE * members.length) break;
    companions.push(best);
  }
  if (companions.length > 0 && companions.some((companion) => labels.indexOf(companion) < members[0]!))
    return members.map((index) => [children[index]!]);
  return gaps.map(({ from, to }, i) => {
    const record = [children[members[i]!]!];
    for (
      let offset = 0;
      offset < companions.length && from + offset < to && labels[from + offset] === companions[offset];
      offset += 1
    )
      record.push(children[from + offset]!);
    return record;
  });
}

/**
 * A group whose members take turns by their classes ("story", none,
 * "story", none): the records may be one turn each, the member with the
 * first classes and those that follow it. Undefined when the classes do not
 * take regular turns. The records that fill the item's fields better win.
 */
function inTurns(children: Element[], labels: number[], label: number, members: number[]): Element[][] | undefined {
  if (members.length < 4) return undefined;
  const keys = members.map((index) => [...classesOf(children[index]!)].sort().join(" "));
  const distinct = new Set(keys);
  if (distinct.size < 2 || distinct.size > MAX_COMPANIONS + 1) return undefined;
  const period = distinct.size;
  let regular = 0;
  for (let i = period; i < keys.length; i += 1) if (keys[i] === keys[i - period]) regular += 1;
  if (regular < COMPANION_SHARE * (keys.length - period)) return undefined;
  // Each turn's member keeps its own label; the first member's classes head the record.
  const ids = new Map<string, number>();
  const turnLabels = labels.map((own, index) => {
    const key = own === label ? `${own} ${[...classesOf(children[index]!)].sort().join(" ")}` : String(own);
    if (!ids.has(key)) ids.set(key, ids.size);
    return ids.get(key)!;
  });
  const head = turnLabels[members[0]!]!;
  const heads = members.filter((index) => turnLabels[index] === head);
  const records = withCompanions(children, turnLabels, head, heads);
  return records.some((record) => record.length > 1) ? records : undefined;
}

function isListContainer(parent: Element): boolean {
  const role = parent.attribs.role;
  if (parent.tagName === "body" || parent.tagName === "html" || parent.tagName === "main" || parent.tagName === "form")
    return false;
  return (
    LIST_TAGS.has(parent.tagName) ||
    role === "list" ||
    role === "feed" ||
    markupTokens(parent).some((word) => LIST_WORDS.has(word))
  );
}

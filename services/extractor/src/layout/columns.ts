/**
 * The columns of a list: the same relative place in every record. An
 * element's place is its path from the record's root (each step its tag and
 * the classes most records share there, so that a class only some records
 * have, "on-sale", does not make a place of its own) and, where a record
 * has several elements at the same path, which of them it is. A column holds
 * each record's element at its place, or nothing where the record lacks it.
 */
import { type Element, isTag } from "domhandler";
import { NOT_TEXT } from "../page/elements.js";
import { classesOf } from "./element-facts.js";
import { isUnseen } from "./hidden.js";

/** Elements read per record: a record larger than this is read in part. */
const MAX_RECORD_ELEMENTS = 400;
/** A class names a place when at least this share of the records have it somewhere. */
const SHARED_CLASS = 0.5;

export interface Column {
  /** The place: its path and occurrence, as a short id unique in the list. */
  key: string;
  /** Its last step with the occurrence ("span.score#0"), for reading and for finding one place written two ways. */
  step: string;
  /** The path without the occurrence: every element there forms a list column. */
  path: string;
  /** Steps below the record's root (0 for a root element). */
  depth: number;
  /** Each record's element at this place, by record index. */
  cells: (Element | undefined)[];
  /** How many records have an element here. */
  count: number;
  /** The column of the parent place, undefined for the roots. */
  parent: Column | undefined;
  /** Whether the place holds records nested in the record (the replies of a comment): its text is not the record's. */
  holdsRecords?: boolean;
}

export interface Columns {
  columns: Column[];
  /** Every record's elements at a path (without occurrence): list fields read all of them. */
  lists: Map<string, (Element[] | undefined)[]>;
  /** Each record's columns by element, to find an element's place. */
  placeOf: Map<Element, Column>;
}

export function readColumns(records: Element[][]): Columns {
  const steps = new StepNames(sharedClasses(records));
  // Paths are numbered as they are met: each path's children by their last step, each path's places by occurrence,
  // each path's occurrences in the record being read (stamped with the record's index): looked up for every element
  // of every record, in arrays by number rather than maps by string (a map per record was much of the garbage).
  const below: Map<string, number>[] = [];
  const names: string[] = [];
  const byPath: Column[][] = [];
  const listOf: (Element[] | undefined)[][] = [];
  const occurrences: number[] = [];
  const stamps: number[] = [];
  const columns: Column[] = [];
  const lists = new Map<string, (Element[] | undefined)[]>();
  const placeOf = new Map<Element, Column>();
  // A record nested in another (a reply in a comment) is its own record, not a part of the other.
  const heads = new Set(records.map((record) => record[0]));
  let index = 0;
  let read = 0;
  // parentPath: the parent's path number, or for a root the record's part number (a root's step starts with ":").
  const visit = (element: Element, parentPath: number, parent: Column | undefined, depth: number) => {
    if (read >= MAX_RECORD_ELEMENTS) return;
    read += 1;
    // The roots are alike by segmentation; a class on some of them (an ad's) must not move every place below.
    const step = depth === 0 ? `:${element.tagName}` : steps.of(element);
    let pathSteps = below[parentPath];
    if (!pathSteps) {
      pathSteps = new Map();
      below[parentPath] = pathSteps;
    }
    let path = pathSteps.get(step);
    if (path === undefined) {
      path = names.length;
      names.push(String(path));
      byPath.push([]);
      const list = new Array<Element[] | undefined>(records.length);
      listOf.push(list);
      lists.set(names[path]!, list);
      occurrences.push(0);
      stamps.push(-1);
      pathSteps.set(step, path);
    }
    const occurrence = stamps[path] === index ? occurrences[path]! : 0;
    stamps[path] = index;
    occurrences[path] = occurrence + 1;
    const places = byPath[path]!;
    let column = places[occurrence];
    if (!column) {
      column = {
        key: `${names[path]}#${occurrence}`,
        step: `${depth === 0 ? `${parentPath}${step}` : step}#${occurrence}`,
        path: names[path]!,
        depth,
        cells: new Array<Element | undefined>(records.length),
        count: 0,
        parent,
      };
      places[occurrence] = column;
      columns.push(column);
    }
    if (column.cells[index] === undefined) {
      column.cells[index] = element;
      column.count += 1;
    }
    placeOf.set(element, column);
    const list = listOf[path]!;
    const inRecord = list[index];
    if (inRecord) inRecord.push(element);
    else list[index] = [element];
    for (const child of element.children) {
      if (!isTag(child) || !isRead(child)) continue;
      if (!heads.has(child)) visit(child, path, column, depth + 1);
      else
        for (let holder: Column | undefined = column; holder && !holder.holdsRecords; holder = holder.parent)
          holder.holdsRecords = true;
    }
  };
  for (; index < records.length; index += 1) {
    read = 0;
    const record = records[index]!;
    for (let part = 0; part < record.length; part += 1) visit(record[part]!, part, undefined, 0);
  }
  return { columns: mergeAlternatives(columns, placeOf), lists, placeOf };
}

/**
 * Places that are one place written two ways: the same last two steps
 * ("h2/a") under different wrappers, never both in one record (a title in
 * an extra wrapper on some records). The rarer one's cells join the more
 * common one's.
 */
function mergeAlternatives(columns: Column[], placeOf: Map<Element, Column>): Column[] {
  const groups = new Map<string, Column[]>();
  for (const column of columns) {
    if (column.depth === 0) continue;
    const signature = `${column.parent!.step.replace(/#\d+$/, "")}/${column.step}`;
    const group = groups.get(signature) ?? [];
    groups.set(signature, group);
    group.push(column);
  }
  const merged = new Set<Column>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const kept: Column[] = [];
    for (const column of [...group].sort((a, b) => b.count - a.count)) {
      const into = kept.find((other) =>
        column.cells.every((cell, index) => cell === undefined || other.cells[index] === undefined),
      );
      if (!into) {
        kept.push(column);
        continue;
      }
      column.cells.forEach((cell, index) => {
        if (cell === undefined) return;
        into.cells[index] = cell;
        into.count += 1;
        placeOf.set(cell, into);
      });
      merged.add(column);
    }
  }
  return merged.size === 0 ? columns : columns.filter((column) => !merged.has(column));
}

function isRead(element: Element): boolean {
  return !NOT_TEXT.has(element.tagName) && !isUnseen(element);
}

/** Classes found in at least half of the records: those name places; the others tell records apart. */
function sharedClasses(records: Element[][]): Set<string> {
  const counts = new Map<string, number>();
  // The record each class was last counted in: a class counts once per record.
  const countedIn = new Map<string, number>();
  const stack: Element[] = [];
  records.forEach((record, index) => {
    stack.length = 0;
    for (const element of record) stack.push(element);
    let read = 0;
    while (stack.length > 0 && read < MAX_RECORD_ELEMENTS) {
      const element = stack.pop()!;
      read += 1;
      for (const name of classesOf(element)) {
        if (countedIn.get(name) === index) continue;
        countedIn.set(name, index);
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      for (const child of element.children) if (isTag(child) && isRead(child)) stack.push(child);
    }
  });
  return new Set([...counts].filter(([, count]) => count >= SHARED_CLASS * records.length).map(([name]) => name));
}

/** An element's step: its tag and the classes most records share, once per tag and class attribute. */
class StepNames {
  private readonly byTag = new Map<string, Map<string, string>>();

  constructor(private readonly shared: Set<string>) {}

  of(element: Element): string {
    let byClass = this.byTag.get(element.tagName);
    if (!byClass) {
      byClass = new Map();
      this.byTag.set(element.tagName, byClass);
    }
    const attribute = element.attribs.class ?? "";
    let step = byClass.get(attribute);
    if (step === undefined) {
      const classes = [...classesOf(element)].filter((name) => this.shared.has(name)).sort();
      step = classes.length > 0 ? `${element.tagName}.${classes.join(".")}` : element.tagName;
      byClass.set(attribute, step);
    }
    return step;
  }
}

/** Whether `inner` is a place below `outer`: in the records that have both, its element is inside the other's. */
export function isWithin(inner: Column, outer: Column): boolean {
  if (inner === outer) return false;
  let checked = 0;
  for (let i = 0; i < inner.cells.length && checked < 3; i += 1) {
    const [a, b] = [inner.cells[i], outer.cells[i]];
    if (!a || !b) continue;
    checked += 1;
    if (!contains(b, a)) return false;
  }
  return checked > 0;
}

function contains(outer: Element, inner: Element): boolean {
  for (
    let node: Element | null = inner.parent as Element | null;
    node && isTag(node);
    node = node.parent as Element | null
  )
    if (node === outer) return true;
  return false;
}

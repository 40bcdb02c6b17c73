/**
 * Records nested in the records of a list (the replies inside a comment, at
 * any depth), found by the tag and classes of the list's record heads.
 */
import { type Element, isTag } from "domhandler";
import { NOT_TEXT } from "../page/elements.js";
import { isUnseen } from "./hidden.js";
import { classKey, type RecordList } from "./segment.js";

/** Elements searched per list for records nested in its records. */
const MAX_NESTED_SEARCH = 5000;

/**
 * A list whose records hold records of the same kind (the replies inside
 * a comment, at any depth): the list of all of them in page order, or
 * undefined when none is nested. Nested records have the head's tag and
 * classes.
 */
export function withNested(list: RecordList): RecordList | undefined {
  const head = list.records[0]?.[0];
  if (!head || list.records.some((record) => record.length > 1)) return undefined;
  const key = classKey(head);
  if (key === "") return undefined;
  const heads = new Set(list.records.map(([element]) => element!));
  const all: Element[] = [];
  let nested = 0;
  let searched = 0;
  const search = (element: Element): void => {
    for (const child of element.children) {
      if (!isTag(child) || NOT_TEXT.has(child.tagName) || isUnseen(child)) continue;
      searched += 1;
      if (searched > MAX_NESTED_SEARCH) return;
      if (child.tagName === head.tagName && !heads.has(child) && classKey(child) === key) {
        all.push(child);
        nested += 1;
      }
      search(child);
    }
  };
  // Heads are siblings in page order; what each holds follows it.
  for (const element of heads) {
    all.push(element);
    search(element);
  }
  return nested === 0 ? undefined : { ...list, records: all.map((element) => [element]) };
}

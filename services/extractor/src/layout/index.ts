/**
 * The layout layer, below every engine: which repeated records a parsed
 * page shows (segment.ts) and, for a list, its columns (columns.ts), read
 * from the page's structure alone, with no schema. The lists are read once
 * per parsed page and kept with its document: each array field, the model
 * path's pre-fill and its content (which marks the records) and template
 * learning read the same lists. Engines decide which list and columns
 * answer a schema's fields.
 */
import type { CheerioAPI } from "cheerio";
import { type RecordList, segmentRecords } from "./segment.js";

export { type Column, type Columns, isWithin, readColumns } from "./columns.js";
export { currencyOf, valueText } from "./element-facts.js";
export { withNested } from "./nested.js";
export type { RecordList } from "./segment.js";
export { headerCellOf } from "./table-header.js";

/** Each page's lists, by its document's root: segmentation only reads the document. */
const segmented = new WeakMap<object, RecordList[]>();

/** The page's candidate lists of repeated records, segmented on first asking. */
export function pageLists($: CheerioAPI): RecordList[] {
  const root = $.root()[0]!;
  let lists = segmented.get(root);
  if (!lists) {
    lists = segmentRecords(root);
    segmented.set(root, lists);
  }
  return lists;
}

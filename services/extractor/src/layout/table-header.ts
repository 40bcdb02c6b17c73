/**
 * A table's header row, which names its columns and is not one of its
 * records: the row of its <thead>, a first row of <th> cells, or a first
 * row of plain cells that reads as labels above rows of values.
 */
import { type Element, isTag } from "domhandler";
import { valueText } from "./element-facts.js";

/** The table a row belongs to, through its <tbody>, <thead> or <tfoot>. */
function tableOf(row: Element): Element | undefined {
  let table: Element | null = row.parent as Element | null;
  if (table && isTag(table) && /^(tbody|thead|tfoot)$/.test(table.tagName)) table = table.parent as Element | null;
  return table && isTag(table) && table.tagName === "table" ? table : undefined;
}

/** Whether a row is its table's header row. */
export function isHeaderRow(row: Element): boolean {
  if (row.tagName !== "tr") return false;
  const table = tableOf(row);
  return table !== undefined && headerRow(table) === row;
}

/** The header cell above a table cell (the header row's cell at its position), if its table has a header row. */
export function headerCellOf(cell: Element): Element | undefined {
  if (cell.tagName !== "td" && cell.tagName !== "th") return undefined;
  const row = cell.parent;
  if (!row || !isTag(row) || row.tagName !== "tr") return undefined;
  const table = tableOf(row);
  const header = table && headerRow(table);
  if (!header || header === row) return undefined;
  // Cells map to header cells by the grid column they start at, spans counted: a header cell spanning two columns
  // ("Topics" over an icon and a title) names both, and the cells after it keep their own headers.
  const cells = cellsOf(row);
  const position = cells.indexOf(cell);
  if (position < 0) return undefined;
  const column = cells.slice(0, position).reduce((sum, before) => sum + spanOf(before), 0);
  let start = 0;
  for (const above of cellsOf(header)) {
    const end = start + spanOf(above);
    if (column < end) return above;
    start = end;
  }
  return undefined;
}

/** How many grid columns a cell spans (its colspan; 1 where none or unreadable). */
function spanOf(cell: Element): number {
  const span = Number.parseInt(cell.attribs.colspan ?? "", 10);
  return Number.isInteger(span) && span > 1 ? span : 1;
}

/** A table's header row: the row of its <thead>, a first row of <th> cells, or a first row that reads as labels. */
function headerRow(table: Element): Element | undefined {
  if (headers.has(table)) return headers.get(table);
  const found = readHeaderRow(table);
  headers.set(table, found);
  return found;
}

const headers = new WeakMap<Element, Element | undefined>();

function readHeaderRow(table: Element): Element | undefined {
  const rows: Element[] = [];
  for (const child of table.children) {
    if (!isTag(child)) continue;
    if (child.tagName === "tr") rows.push(child);
    else if (/^(thead|tbody)$/.test(child.tagName))
      for (const row of child.children) if (isTag(row) && row.tagName === "tr") rows.push(row);
    if (rows.length > 0) break;
  }
  const first = rows[0];
  if (!first) return undefined;
  const inHead = first.parent && isTag(first.parent) && first.parent.tagName === "thead";
  return inHead || cellsOf(first).every((cell) => cell.tagName === "th") || readsAsLabels(first, rows[1])
    ? first
    : undefined;
}

/**
 * A first row of plain cells that reads as the columns' names: every cell a
 * short text of words alone (no digits, no links), where the next row
 * holds digits or links in some cell.
 */
function readsAsLabels(first: Element, next: Element | undefined): boolean {
  if (!next) return false;
  const plain = (cell: Element) => /^[^\d]{1,30}$/.test(valueText(cell)) && firstLinkIn(cell) === undefined;
  const cells = cellsOf(first);
  return cells.length >= 2 && cells.every(plain) && !cellsOf(next).every(plain);
}

function firstLinkIn(element: Element): Element | undefined {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.tagName === "a") return child;
    const inner = firstLinkIn(child);
    if (inner) return inner;
  }
  return undefined;
}

function cellsOf(row: Element): Element[] {
  return row.children.filter(
    (child): child is Element => isTag(child) && (child.tagName === "td" || child.tagName === "th"),
  );
}

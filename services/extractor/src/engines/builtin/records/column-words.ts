/**
 * The words a column is named by: its elements' markup, their labelling
 * attributes, an icon before them, the label a reader sees before them,
 * their table column's header, and their links' addresses.
 */
import { type Element, isTag, isText } from "domhandler";
import type { Column } from "../../../layout/index.js";
import { valueText } from "../../../layout/index.js";
import { collapsed } from "../../../page/elements.js";
import { singular } from "../match.js";
import { wordsOf as markupWords } from "./markup.js";
import { BY_LABEL, cachedTokens } from "./names.js";
import { closestLink } from "./read-cell.js";

/** Cells whose words are read per column. */
const SAMPLE = 4;

export interface ColumnWords {
  /** Markup words of the element itself and its labelling attributes. */
  own: Set<string>;
  /** Markup words of the element alone. */
  markup: Set<string>;
  /** Markup words of its ancestors inside the record. */
  ancestors: Set<string>;
  /** Markup words of an empty element just before it: an icon or a colour swatch that labels it. */
  icon: Set<string>;
  /** Words of the visible label before it ("Tags:") or of its table column's header. */
  label: Set<string>;
  /** Words of the path of the link it is in or is. */
  href: Set<string>;
}

export function readWords(column: Column, ancestors: Set<string>): ColumnWords {
  const own = new Set<string>();
  const markup = new Set<string>();
  const icon = new Set<string>();
  const label = new Set<string>();
  const sampledCells: Element[] = [];
  let sampled = 0;
  for (const cell of column.cells) {
    if (!cell || sampled >= SAMPLE) continue;
    sampled += 1;
    for (const word of markupWords(cell)) {
      own.add(word);
      markup.add(word);
    }
    for (const word of labelWords(cell)) own.add(word);
    // A table cell is named by its column's header ("Rating" over the ratings).
    for (const word of headerWords(cell)) label.add(word);
    for (const word of visibleLabel(cell)) label.add(word);
    const before = previousElement(cell);
    if (before && valueText(before) === "") for (const word of markupWords(before)) icon.add(word);
    sampledCells.push(cell);
  }
  let href: Set<string> | undefined;
  return {
    own,
    markup,
    ancestors,
    icon,
    label,
    // Read only when asked: few fields look at the addresses of links.
    get href() {
      if (!href) {
        href = new Set<string>();
        for (const cell of sampledCells) {
          const link = closestLink(cell);
          if (link) for (const word of hrefWords(link.attribs.href ?? "")) href.add(word);
        }
      }
      return href;
    },
  };
}

/** Words of an element's aria-label and title, numbers left out ("4.6 out of 5 stars" → out, star). */
function labelWords(element: Element): string[] {
  const { "aria-label": label, title } = element.attribs;
  if (!label && !title) return [];
  return [label, title].flatMap((text) =>
    text && !/^https?:/.test(text)
      ? cachedTokens(text)
          .filter((t) => !/\d/.test(t))
          .map(singular)
      : [],
  );
}

/** The words of the header cell above a table cell: the header row's cell at the same position. */
function headerWords(cell: Element): string[] {
  if (cell.tagName !== "td" && cell.tagName !== "th") return [];
  const row = cell.parent;
  if (!row || !isTag(row) || row.tagName !== "tr") return [];
  let table: Element | null = row.parent as Element | null;
  if (table && isTag(table) && /^(tbody|thead|tfoot)$/.test(table.tagName)) table = table.parent as Element | null;
  if (!table || !isTag(table) || table.tagName !== "table") return [];
  const header = headerRow(table);
  if (!header || header === row) return [];
  const position = cellsOf(row).indexOf(cell);
  const above = position >= 0 ? cellsOf(header)[position] : undefined;
  return above ? cachedTokens(valueText(above)).map(singular) : [];
}

/** A table's header row: the row of its <thead>, or a first row of <th> cells. */
function headerRow(table: Element): Element | undefined {
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
  return inHead || cellsOf(first).every((cell) => cell.tagName === "th") ? first : undefined;
}

function cellsOf(row: Element): Element[] {
  return row.children.filter(
    (child): child is Element => isTag(child) && (child.tagName === "td" || child.tagName === "th"),
  );
}

/** The words of a link's path and of its fragment: "#instructor" names the part of the page it leads to. */
function hrefWords(href: string): string[] {
  const [address = "", fragment = ""] = href.replace(/^[a-z]+:\/\/[^/]+/i, "").split("#");
  const path = `${address.split("?")[0] ?? ""} ${fragment}`;
  return cachedTokens(path)
    .filter((t) => !/\d/.test(t) && t.length > 2)
    .map(singular);
}

/** A visible label is short and ends with a colon ("Tags:", "Ships from:"). */
const LABEL = /^([^:]{1,30}):$/;

/**
 * The words of the label written just before an element, in its parent:
 * the text or the element before it (empty elements and whitespace passed
 * over) when that reads as a label.
 */
function visibleLabel(element: Element): string[] {
  for (let node = element.prev; node; node = node.prev) {
    const text = isText(node) ? collapsed(node.data) : isTag(node) ? valueText(node) : "";
    if (!text) continue;
    // "by" before a name is a byline's label: the name is its author's.
    if (BY_LABEL.test(text.trim())) return ["author"];
    const label = LABEL.exec(text.trim());
    return label ? cachedTokens(label[1]!).map(singular) : [];
  }
  return [];
}

function previousElement(element: Element): Element | undefined {
  for (let node = element.prev; node; node = node.prev) if (isTag(node)) return node;
  return undefined;
}

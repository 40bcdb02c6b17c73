/**
 * The words a column is named by: its elements' markup, their labelling
 * attributes, an icon before them, the label a reader sees before them,
 * their table column's header, and their links' addresses.
 */
import { type Element, isTag, isText } from "domhandler";
import type { Column } from "../../../layout/index.js";
import { headerCellOf, valueText } from "../../../layout/index.js";
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
    // An empty element just before the cell's text, beside it or inside it: an icon, named by its markup or its label.
    for (const mark of [previousElement(cell), leadingElement(cell)])
      if (mark && valueText(mark) === "")
        for (const word of [...markupWords(mark), ...labelWords(mark)]) icon.add(word);
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
  const above = headerCellOf(cell);
  return above ? cachedTokens(valueText(above)).map(singular) : [];
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

/** The element a cell starts with, before any text of its own. */
function leadingElement(cell: Element): Element | undefined {
  for (const node of cell.children) {
    if (isTag(node)) return node;
    if (isText(node) && node.data.trim() !== "") return undefined;
  }
  return undefined;
}

function previousElement(element: Element): Element | undefined {
  for (let node = element.prev; node; node = node.prev) if (isTag(node)) return node;
  return undefined;
}

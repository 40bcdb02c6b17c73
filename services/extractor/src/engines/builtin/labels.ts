/**
 * Values the page labels for a reader: two-column table rows, definition
 * lists, "Label: value" lines and form-like layouts where a short label
 * element ("Director:", <th>, <label>) is followed by its value. Read from
 * the rendered HTML, in document order.
 */
import type { Cheerio, CheerioAPI } from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { collapsed, elementsNamed, isHiddenWithin, laidOutText, ownText } from "../../page/elements.js";

export interface Labelled {
  label: string;
  value: string;
  /** The texts of the value's links or list items when it holds several ("Crime | Thriller"). */
  items: string[];
  /** In a part of the page hidden from readers (a popover, another edition's details): weaker than what they see. */
  hidden: boolean;
  /** The element that shows the value: its cell, its definition, the line that holds it. */
  element: Element;
}

const MAX_LABEL_CHARS = 40;
const MAX_VALUE_CHARS = 300;
const MAX_LABELS = 2000;
/** Elements that hold a whole line of text; a "Label: value" line is looked for only in these. */
const LINES = ["li", "p", "div", "span", "td", "dd", "h2", "h3", "h4", "h5", "h6"];
const BLOCKS = "div, p, li, ul, ol, table, tr, dl, section, article, h1, h2, h3, h4, h5, h6";
const LABEL_TAGS = ["b", "strong", "th", "label", "dt", "h3", "h4", "h5", "em", "span"];
const LABEL_ELEMENTS = LABEL_TAGS.join(", ");
/**
 * Label elements that need no colon: a heading or <label> followed by text in the same block (table headers are read
 * with their rows).
 */
const LABEL_HEADINGS = new Set(["h3", "h4", "h5", "label"]);
const MAX_ROW_CELLS = 3;
const INLINE = new Set(["span", "a", "b", "strong", "em", "i", "font", "label", "small"]);
const COLON_LINE = /^([^:\n]{1,40}?)\s*[:：]\s+(\S.*)$/s;
/**
 * How a label element ends: a colon, or a spaced dash some pages use instead ("<strong>Product Code -
 * </strong>39139301").
 */
const LABEL_END = /(?:[:：]|\s[-–])\s*$/;

export function readLabels($: CheerioAPI): Labelled[] {
  const found: Labelled[] = [];
  const add = (at: Element, label: string, valueNode: Cheerio<AnyNode> | undefined, valueText: string) => {
    const cleanLabel = collapsed(label)
      .replace(/(?:[:：]|\s[-–])$/, "")
      .trim();
    const value = collapsed(valueText);
    if (
      !cleanLabel ||
      cleanLabel.length > MAX_LABEL_CHARS ||
      !value ||
      value.length > MAX_VALUE_CHARS ||
      found.length >= MAX_LABELS
    )
      return;
    const shown = valueNode?.get(0);
    const element = shown?.type === "tag" ? (shown as Element) : at;
    found.push({
      label: cleanLabel,
      value,
      items: valueNode ? itemsOf($, valueNode) : [],
      hidden: isHiddenWithin(at),
      element,
    });
  };

  // Each scan stops once the labels are full: on a long list of labelled records the rest would all be dropped.
  const each = <T extends AnyNode>(elements: Cheerio<T>, read: (element: T) => void) =>
    elements.each((_, element) => {
      if (found.length >= MAX_LABELS) return false;
      read(element);
    });

  const headerRows = new Set<Element>();
  each(elementsNamed($, ["table"]), (table) => {
    const columns = columnTable($, table);
    if (!columns) return;
    headerRows.add(columns.header);
    columns.headers.each((i, header) => {
      const cell = columns.cells.eq(i);
      add(cell.get(0)!, $(header).text(), cell, laidOutText(cell.get(0)!));
    });
  });
  each(elementsNamed($, ["tr"]), (row) => {
    const cells = $(row).children("th, td");
    // A row of header cells heads the columns below it ("Author | Message"): neither cell is the other's value.
    if (cells.length === 2 && !headerRows.has(row) && cells.filter("td").length > 0)
      add(row, cells.eq(0).text(), cells.eq(1), laidOutText(cells.get(1)!));
  });
  each(elementsNamed($, ["dt"]), (term) => {
    const definition = $(term).next("dd");
    if (definition.length > 0) add(term, $(term).text(), definition, laidOutText(definition.get(0)!));
  });
  // Pre-filtered on the element's own text: reading the text of every <span> of a large page is what costs.
  each(
    elementsNamed($, LABEL_TAGS).filter(
      (_, element) => LABEL_END.test(ownText(element)) || LABEL_HEADINGS.has(element.tagName),
    ),
    (element) => {
      const label = $(element);
      const text = collapsed(label.text());
      if (text.length > MAX_LABEL_CHARS + 1 || label.is("dt")) return;
      // Without a colon, only a heading or a label element followed by text in the same block reads as a label.
      if (!LABEL_END.test(text) && !LABEL_HEADINGS.has(element.tagName)) return;
      // The value is what follows the label within its parent, else the next element that has text.
      const rest = followingText(label);
      if (rest) add(element, text, label.parent(), rest);
      else {
        const next = nextWithText($, label, text);
        if (next) add(element, text, next, laidOutText(next.get(0)!));
      }
    },
  );
  // A section's heading over a list labels the list ("Ingredients" over its items); over prose it is only a title.
  each(elementsNamed($, ["h2"]), (heading) => {
    const next = $(heading)
      .nextAll()
      .filter((_, sibling) => collapsed($(sibling).text()) !== "")
      .first();
    if (next.is("ul, ol")) add(heading, $(heading).text(), next, laidOutText(next.get(0)!));
  });
  each(
    elementsNamed($, LINES).filter((_, element) => ownText(element).includes(":") || ownText(element).includes("：")),
    (element) => {
      const line = $(element);
      if (line.find(BLOCKS).length > 0) return;
      // Labels found above via their label element are not read twice; an empty one (a spacer) labels nothing.
      if (line.children(LABEL_ELEMENTS).filter((_, child) => collapsed($(child).text()) !== "").length > 0) return;
      for (const [label, value] of labelledParts(laidOutText(element))) add(element, label, undefined, value);
    },
  );
  each(
    elementsNamed($, LINES).filter((_, element) => element.children.every((child) => child.type === "text")),
    (element) => {
      const match = CODE_LINE.exec(collapsed(ownText(element)));
      if (match) add(element, match[1]!, undefined, match[2]!);
    },
  );
  return found;
}

/**
 * A table of one record laid out in columns: a row of header cells over a single row of values ("vCPUs | Memory"
 * over "4 | 16 GB"). With more rows it is a list, whose values no single label names.
 */
function columnTable(
  $: CheerioAPI,
  table: Element,
): { header: Element; headers: Cheerio<Element>; cells: Cheerio<Element> } | undefined {
  const rows = $(table)
    .find("tr")
    .filter((_, row) => $(row).closest("table").get(0) === table);
  if (rows.length !== 2) return undefined;
  const headers = rows.eq(0).children("th, td");
  const cells = rows.eq(1).children("th, td");
  const allHeaders = headers.length >= 2 && headers.toArray().every((cell) => cell.tagName === "th");
  return allHeaders && cells.length === headers.length && cells.filter("th").length === 0
    ? { header: rows.get(0)!, headers, cells }
    : undefined;
}

/** A label with its value left empty ("Subject:"). */
const LABEL_ALONE = /^([^:\n]{1,40}?)\s*[:：]$/;
/**
 * A run of blanks with a non-breaking one: spacing the writer put between two items of a line ("Posted: 4 May
 * &nbsp; &nbsp;Subject: …"), where the source's own indentation and line breaks are ordinary blanks.
 */
const SPACED_APART = /\s*\u00a0\s+|\s+\u00a0\s*/;

/**
 * The "Label: value" pairs of a line. A value ends where the next label starts: a part of the line spaced apart from
 * it that is itself "Label: value", or a label left empty. A part that is not stays with the value before it.
 */
function labelledParts(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const part of text.split(SPACED_APART)) {
    const match = COLON_LINE.exec(collapsed(part)) ?? LABEL_ALONE.exec(collapsed(part));
    if (match) pairs.push([match[1]!, match[2] ?? ""]);
    else if (pairs.length > 0) pairs.at(-1)![1] += ` ${part}`;
    else break;
  }
  if (pairs.length > 0) return pairs;
  const whole = COLON_LINE.exec(collapsed(text));
  return whole ? [[whole[1]!, whole[2]!]] : [];
}

/**
 * A line that is an identifier's acronym and the identifier, no colon between: shops write "SKU MKI6IKW1N4",
 * "EAN 4006381333931". The code is one token with a digit; the acronym is in capitals, as such labels are written.
 */
const CODE_LINE = /^(\p{Lu}{2,5})\s+([\p{L}\p{N}][\p{L}\p{N}./-]*\p{N}[\p{L}\p{N}./-]*)$/u;

/** The text after a label element inside its parent ("<li><b>ISBN-13:</b> 978-...</li>" → "978-..."). */
function followingText(label: Cheerio<Element>): string {
  const parent = label.parent();
  if (parent.length === 0 || parent.find(BLOCKS).not(label).length > 0) return "";
  let after = false;
  let text = "";
  parent.contents().each((_, node) => {
    if (node === label[0]) after = true;
    else if (after) text += laidOutText(node);
  });
  return collapsed(text);
}

/**
 * The first later sibling with text, looking past empty ones (a help icon);
 * when the label is all the text of its wrapper, the wrapper's siblings
 * ("<span><span>MSRP:</span><a/></span> <span>$9,970</span>"). A label
 * alone in a block is followed into the next block only within a row: a
 * small element holding the two, not the page's body.
 */
function nextWithText($: CheerioAPI, label: Cheerio<Element>, text: string): Cheerio<Element> | undefined {
  let current = label;
  for (let level = 0; level < 3 && current.length > 0; level += 1) {
    const next = current
      .nextAll()
      .filter((_, sibling) => collapsed($(sibling).text()) !== "")
      .first();
    if (next.length > 0) return next;
    const parent = current.parent();
    if (collapsed(parent.text()) !== text) return undefined;
    const row = parent.parent();
    if (
      !INLINE.has(parent.prop("tagName")?.toLowerCase() ?? "") &&
      (row.is("body") || row.children().length > MAX_ROW_CELLS)
    )
      return undefined;
    current = parent;
  }
  return undefined;
}

function itemsOf($: CheerioAPI, node: Cheerio<AnyNode>): string[] {
  const parts = node
    .find("a, li")
    .toArray()
    .map((element: Element) => collapsed($(element).text()))
    .filter((text) => text && !text.endsWith(":"));
  return parts.length >= 2 ? parts : [];
}

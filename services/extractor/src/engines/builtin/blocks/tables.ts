/** Table rows under a header row that names the fields. */
import type { CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { textOf } from "../../../page/elements.js";
import { words } from "../match.js";
import {
  type Blocks,
  type Field,
  type Found,
  MAX_BLOCKS,
  MAX_CANDIDATES,
  markupWords,
  names,
  namesArray,
  readValue,
  scored,
} from "./fields.js";

/** Rows of a table whose header row (th cells, or a thead row) names the fields' columns. */
export function tableRows($: CheerioAPI, elements: Element[], fields: Field[], arrayWords: string[]): Blocks[] {
  return elements
    .filter((e) => e.tagName === "table")
    .slice(0, MAX_CANDIDATES)
    .flatMap((table) => {
      const [first, ...rows] = $(table)
        .find("tr")
        .toArray()
        .slice(0, MAX_BLOCKS + 1);
      const header = first ? $(first).children("th, td") : undefined;
      const isHeader =
        header !== undefined && header.length >= 2 && (header.is("th") || $(first!).closest("thead").length > 0);
      if (!isHeader || rows.length === 0) return [];
      const columns = header.toArray().map((cell) => new Set(words(textOf(cell))));
      const caption = $(table)
        .children("caption")
        .toArray()
        .flatMap((element) => words(textOf(element)));
      const blocks = rows.map((row) => {
        const cells = $(row).children("th, td").toArray();
        const found = new Map<string, Found>();
        for (const field of fields) {
          const cell = cells[columns.findIndex((column) => names(column, field))];
          const value = cell && (field.isList ? listOf($, cell) : readValue(cell, field));
          if (value !== undefined) found.set(field.name, { value, fromHeading: false, element: cell });
        }
        return found;
      });
      return [scored(blocks, fields, namesArray(new Set([...markupWords(table), ...caption]), arrayWords))];
    });
}

/** The texts of a cell's list items or links, else its text. */
function listOf($: CheerioAPI, cell: Element): string[] | undefined {
  const parts = $(cell)
    .find("li, a")
    .toArray()
    .map(textOf)
    .filter((text) => text.length > 0);
  const text = textOf(cell);
  return parts.length > 0 ? parts : text ? [text] : undefined;
}

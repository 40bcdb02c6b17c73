/**
 * The page's body written as the model reads it: markdown-like text (headings, paragraphs, lists, pipe tables,
 * links and images with absolute URLs), leaving out what content.ts marks as no reader's content and marking
 * where each record starts and ends.
 */

import type { CheerioAPI } from "cheerio";
import type { AnyNode, Element, ParentNode } from "domhandler";
import { classNameNumber, classNumber } from "../../page/class-number.js";
import { collapsed } from "../../page/elements.js";
import { absoluteUrl } from "../../page/page.js";

/** Link and image URLs cost many tokens; they are written only when a field may want them. */
export interface UrlOptions {
  links: boolean;
  images: boolean;
}

/** Marks where a record starts and ends while writing; the marks never reach the text. */
export const RECORD_START = "\u001e";
export const RECORD_END = "\u001f";

/** Whether a node or an ancestor of it (below `within`, when given) is left out. */
export function isLeftOut(node: AnyNode, out: Set<AnyNode>, within?: AnyNode): boolean {
  for (let at: AnyNode | null = node; at && at !== within; at = at.parent) if (out.has(at)) return true;
  return false;
}

/** Longer stated values are descriptions, already shown as text where they matter. */
const MAX_MACHINE_VALUE = 100;

/** Text compared without case and spacing. */
export function squash(text: string): string {
  return collapsed(text).toLowerCase();
}

/** Marks list indentation while writing: spaces from the page are collapsed at the end, these are not. */
const INDENT = "\0";
export const LEADING_INDENT = /^\0+/;

/** Elements that start a new paragraph (headings, lists, tables and the like are written their own way). */
const BLOCKS = new Set([
  "address",
  "article",
  "blockquote",
  "body",
  "details",
  "dialog",
  "div",
  "dl",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "header",
  "hr",
  "html",
  "li",
  "main",
  "p",
  "section",
  "summary",
  "tr",
]);

/** Markdown-like writing; block elements are separated by blank lines, collapsed at the end. */
export class MarkdownWriter {
  constructor(
    private readonly $: CheerioAPI,
    private readonly baseUrl: URL | undefined,
    private readonly urls: UrlOptions,
    private readonly left: Set<AnyNode>,
    /** Record marks by element: RECORD_START before the first, RECORD_END after the last (both for a one-element record). */
    private readonly marks: Map<AnyNode, string> = new Map(),
  ) {}

  children(parent: ParentNode): string {
    return parent.children.map((child) => this.marked(child)).join("");
  }

  private marked(node: AnyNode): string {
    return this.withMarks(node, this.node(node));
  }

  /** The node's text with the marks of a record it starts or ends. */
  private withMarks(node: AnyNode, text: string): string {
    const mark = this.marks.get(node);
    if (mark === undefined) return text;
    const start = mark.startsWith(RECORD_START) ? RECORD_START : "";
    const end = mark.endsWith(RECORD_END) ? RECORD_END : "";
    return `${start}${text}${end}`;
  }

  private node(node: AnyNode): string {
    if (node.type === "text")
      return node.data
        .replace(/\s+/g, " ")
        .replaceAll(INDENT, "")
        .replaceAll(RECORD_START, "")
        .replaceAll(RECORD_END, "");
    if (node.type !== "tag" || this.left.has(node)) return "";
    const element = node;
    const name = element.name.toLowerCase();
    if (/^h[1-6]$/.test(name)) return `\n\n${"#".repeat(Number(name[1]))} ${this.inline(element)}\n\n`;
    switch (name) {
      case "br":
        return "\n";
      case "meta":
      case "link":
        return this.statedValue(element);
      case "pre":
        return `\n\n${this.$(element).text()}\n\n`;
      case "ul":
      case "ol":
        return `\n\n${this.listItems(element)}\n\n`;
      case "table":
        return this.$(element).find("table").length > 0
          ? `\n\n${this.children(element)}\n\n`
          : `\n\n${this.table(element)}\n\n`;
      case "dt":
        return `\n${this.inline(element)}:`;
      case "dd":
        return ` ${this.inline(element)}`;
      case "a":
        return this.link(element);
      case "img":
        return this.image(element);
      default: {
        const inner = `${this.children(element)}${this.machineValue(element)}`;
        return BLOCKS.has(name) ? `\n\n${inner}\n\n` : inner;
      }
    }
  }

  /**
   * An invisible microdata property (`<meta itemprop="datePublished" content="...">`, `<link itemprop="availability"
   * href="...">`) as a line of its own.
   */
  private statedValue(element: Element): string {
    const { itemprop, content, href } = element.attribs;
    const value = (content ?? (element.name === "link" ? href : undefined))?.trim();
    return itemprop && value ? `\n${itemprop}: ${value}\n` : "";
  }

  /**
   * The machine-readable form a page gives beside a shown value (a <time>'s
   * datetime, a microdata content or an abbr's title under an itemprop),
   * when it says more than the text: "12. Nov. 2021 (2021-11-12)"; and a
   * number only the element's class states, with its other classes as its
   * label (`<p class="star-rating Three">` as "(star-rating: 3)"), which the
   * page draws from its style sheet and the text would otherwise lose.
   */
  private machineValue(element: Element): string {
    const { attribs } = element;
    const classed = classNumber(element);
    if (classed !== undefined && !/\d/.test(this.$(element).text())) {
      const label = (attribs.class ?? "")
        .split(/\s+/)
        .filter((name) => name !== "" && classNameNumber(name) === undefined);
      return ` (${label.join(" ") || "class"}: ${classed})`;
    }
    const stated =
      element.name === "time"
        ? attribs.datetime
        : attribs.itemprop
          ? (attribs.content ?? (element.name === "abbr" ? attribs.title : undefined))
          : undefined;
    const value = stated === undefined ? undefined : collapsed(stated);
    if (!value || value.length > MAX_MACHINE_VALUE) return "";
    return squash(this.$(element).text()).includes(squash(value)) ? "" : ` (${value})`;
  }

  /** Children on one line, for headings, cells and link texts. */
  private inline(element: Element): string {
    return this.children(element).replace(/\s+/g, " ").trim();
  }

  private listItems(list: Element): string {
    // Every element child is an item: frameworks wrap items in their own elements ("<ul><app-card><li>…").
    return list.children
      .filter((child): child is Element => child.type === "tag" && !this.left.has(child))
      .map((item) => {
        const lines = this.children(item)
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "");
        // Continuation lines (nested lists, later paragraphs) are indented under their item.
        return lines.length > 0 ? this.withMarks(item, `- ${lines.join(`\n${INDENT}`)}`) : "";
      })
      .filter((item) => item !== "")
      .join("\n");
  }

  private table(table: Element): string {
    const rows = this.$(table)
      .find("tr")
      .toArray()
      .filter((row) => !isLeftOut(row, this.left, table))
      .map((row) => ({
        row,
        cells: row.children
          .filter(
            (cell): cell is Element =>
              cell.type === "tag" && (cell.name === "td" || cell.name === "th") && !this.left.has(cell),
          )
          .map((cell) => this.inline(cell).replace(/\|/g, "\\|")),
      }))
      .filter(({ cells }) => cells.some((cell) => cell !== ""));
    const width = Math.max(0, ...rows.map(({ cells }) => cells.length));
    if (width === 0) return "";
    const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
    const [header, ...rest] = rows;
    return [
      this.withMarks(header?.row ?? table, line(header?.cells ?? [])),
      line(Array<string>(width).fill("---")),
      ...rest.map(({ row, cells }) => this.withMarks(row, line(cells))),
    ].join("\n");
  }

  private link(element: Element): string {
    const text = this.inline(element);
    if (!this.urls.links) return text;
    const href = element.attribs.href;
    const url = href?.startsWith("#") ? undefined : absoluteUrl(href, this.baseUrl);
    return text && url ? `[${text}](${url})` : text;
  }

  private image(element: Element): string {
    if (!this.urls.images) return "";
    const { src, alt } = element.attribs;
    // Lazy-loading pages put a placeholder (often a data: URI) in src and the real image elsewhere.
    const candidates = [element.attribs["data-src"], src, element.attribs.srcset?.split(/\s+/)[0]];
    const url = candidates.map((candidate) => absoluteUrl(candidate, this.baseUrl)).find((u) => u !== undefined);
    return url ? `![${(alt ?? "").replace(/\s+/g, " ").trim()}](${url})` : "";
  }
}

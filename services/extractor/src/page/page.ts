/**
 * One parse of the page's HTML, shared by the engines: the cheerio document,
 * the base URL for relative links, and the structured data the page declares
 * about itself (read before anything is removed from the document).
 */

import { type CheerioAPI, load } from "cheerio";
import { type AnyNode, type ChildNode, type Element, hasChildren, isTag, type ParentNode } from "domhandler";
import { jsonrepair } from "jsonrepair";
import { textWithout } from "./elements.js";

export interface Page {
  $: CheerioAPI;
  /** The address the page was requested from; undefined when unknown. Names its site, whatever the page declares. */
  url: URL | undefined;
  /** Base for relative links (the page URL, or its <base href>); undefined when the URL is unknown. */
  baseUrl: URL | undefined;
  structured: StructuredData;
}

export interface StructuredData {
  /** Parsed JSON-LD blocks in page order; blocks that are not valid JSON are skipped. */
  jsonLd: unknown[];
  /** <meta> name or property (lower case) to content, first occurrence winning: og:*, twitter:*, description, ... */
  meta: Map<string, string>;
  /** The <meta> element of each entry of `meta`, for evidence. */
  metaElements: Map<string, Element>;
  title: string | undefined;
  /** The texts of the first few <h1> elements: pages use one for the logo or the menu as often as for the heading. */
  h1s: string[];
  /** The elements of `h1s`, in the same order. */
  h1Elements: Element[];
}

export function loadPage(html: string, url: string): Page {
  const $ = load(html);
  flattenBelow($.root()[0]!, MAX_DEPTH);
  const pageUrl = URL.canParse(url) ? new URL(url) : undefined;
  const declaring = declaringElements($.root()[0]!);
  return { $, url: pageUrl, baseUrl: baseUrlOf(declaring, pageUrl), structured: readStructuredData($, declaring) };
}

/** The elements by which a page declares things about itself, in document order. */
interface DeclaringElements {
  bases: Element[];
  jsonLdScripts: Element[];
  metas: Element[];
  titles: Element[];
  h1s: Element[];
}

/**
 * The page's declaring elements (`base[href]`, `script[type="application/ld+json" i]`, `meta[content]`, `title`,
 * `h1`), in one walk of the document: as many selector queries each walk the whole document.
 */
function declaringElements(root: ParentNode): DeclaringElements {
  const found: DeclaringElements = { bases: [], jsonLdScripts: [], metas: [], titles: [], h1s: [] };
  for (const node of descendantsOf(root)) {
    if (!isTag(node)) continue;
    const { name, attribs } = node;
    if (name === "base" && attribs.href !== undefined) found.bases.push(node);
    else if (name === "script" && attribs.type?.toLowerCase() === "application/ld+json") found.jsonLdScripts.push(node);
    else if (name === "meta" && attribs.content !== undefined) found.metas.push(node);
    else if (name === "title") found.titles.push(node);
    else if (name === "h1") found.h1s.push(node);
  }
  return found;
}

/**
 * Elements nest at most this deep; real pages stay under a hundred levels. A page nested deeper (tens of thousands
 * of <span>s) would make every walk of the document quadratic in its depth (the DOM library's search keeps a stack
 * of levels that it shifts), stalling the extractor for minutes.
 */
const MAX_DEPTH = 256;

/**
 * The nodes below the depth limit become children of their ancestor at the limit, in document order: their text
 * reads the same, only the nesting past the limit is gone.
 */
function flattenBelow(root: AnyNode, maxDepth: number): void {
  // Nodes and their depths on two stacks: an object per node of a large page was garbage to collect.
  const stack: AnyNode[] = [root];
  const depths: number[] = [0];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const depth = depths.pop()!;
    if (!hasChildren(node)) continue;
    if (depth >= maxDepth) {
      const flat = descendantsOf(node);
      for (const [i, child] of flat.entries()) {
        if (hasChildren(child)) child.children = [];
        child.parent = node;
        child.prev = flat[i - 1] ?? null;
        child.next = flat[i + 1] ?? null;
      }
      node.children = flat;
      continue;
    }
    for (const child of node.children) {
      stack.push(child);
      depths.push(depth + 1);
    }
  }
}

/** Every node under `node` in document order (iterative: the depth may be anything). */
function descendantsOf(node: ParentNode): ChildNode[] {
  const found: ChildNode[] = [];
  const stack: ChildNode[] = [...node.children].reverse();
  for (let at = stack.pop(); at; at = stack.pop()) {
    found.push(at);
    if (hasChildren(at)) for (let i = at.children.length - 1; i >= 0; i -= 1) stack.push(at.children[i]!);
  }
  return found;
}

/** An absolute http(s) URL for a link or image reference, or undefined when there is none. */
export function absoluteUrl(reference: string | undefined, base: URL | undefined): string | undefined {
  const trimmed = reference?.trim();
  if (!trimmed) return undefined;
  const parsed = URL.canParse(trimmed, base?.href) ? new URL(trimmed, base) : undefined;
  return parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") ? parsed.href : undefined;
}

function baseUrlOf(declaring: DeclaringElements, pageUrl: URL | undefined): URL | undefined {
  const declared = absoluteUrl(declaring.bases[0]?.attribs.href, pageUrl);
  return declared ? new URL(declared) : pageUrl;
}

function readStructuredData($: CheerioAPI, declaring: DeclaringElements): StructuredData {
  const jsonLd: unknown[] = [];
  for (const script of declaring.jsonLdScripts) {
    // Some sites wrap the JSON in comments or CDATA markers, or end it with a semicolon as if it were a script.
    const text = $(script)
      .text()
      .trim()
      .replace(/^(<!--|\/\*<!\[CDATA\[\*\/|<!\[CDATA\[)/, "")
      .replace(/(-->|\/\*\]\]>\*\/|\]\]>)$/, "")
      .replace(/;\s*$/, "");
    const data = parseJson(text) ?? parseJson(repaired(text));
    // Invalid JSON-LD that no repair makes sense of is common too; the rest of the page still counts.
    if (data !== undefined) jsonLd.push(data);
  }
  const meta = new Map<string, string>();
  const metaElements = new Map<string, Element>();
  for (const element of declaring.metas) {
    const name = ($(element).attr("property") ?? $(element).attr("name") ?? $(element).attr("itemprop"))
      ?.trim()
      .toLowerCase();
    const content = $(element).attr("content")?.trim();
    if (name && content && !meta.has(name)) {
      meta.set(name, content);
      metaElements.set(name, element);
    }
  }
  const h1Elements = declaring.h1s.slice(0, MAX_H1S).filter((h1) => headingText(h1) !== "");
  const h1s = h1Elements.map(headingText);
  const title = declaring.titles[0];
  return { jsonLd, meta, metaElements, title: title && textOf($(title).text()), h1s, h1Elements };
}

const MAX_H1S = 5;

/**
 * Markup words of a kicker: the short line a newsroom sets above a headline inside its heading ("Adblue nachfüllen"
 * over "So wird Adblue richtig angewendet"), a label of the story's topic rather than part of its headline.
 */
const KICKER =
  /^(kicker|roofline|overline|eyebrow|dachzeile|topline|supertitle|overtitle|pretitle|surtitre|antetitulo|occhiello)$/i;

/** A heading's text as laid out (parts apart never glued), without its kicker. */
function headingText(heading: Element): string {
  return textWithout(heading, (element) =>
    `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`.split(/[\s_-]+/).some((word) => KICKER.test(word)),
  );
}

function textOf(text: string): string | undefined {
  return text.replace(/\s+/g, " ").trim() || undefined;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Hand-written JSON-LD often has what JSON forbids: trailing commas, comments, raw line breaks in strings, single
 * quotes.
 */
function repaired(text: string): string | undefined {
  try {
    return jsonrepair(text);
  } catch {
    return undefined;
  }
}

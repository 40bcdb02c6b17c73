/**
 * The page as the model reads it: compact markdown-like text (headings,
 * paragraphs, lists, pipe tables, links and images with absolute URLs) with
 * scripts, styles and obvious boilerplate removed, preceded by the page's own
 * structured data (JSON-LD, OpenGraph/Twitter/meta), which is often the most
 * reliable source of a field.
 */

import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { CheerioAPI } from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { decodeHTML } from "entities";
import { bodyOf, isInlineHidden } from "../../page/elements.js";
import type { Page, StructuredData } from "../../page/page.js";
import { nameTokens } from "../../schema/field-names.js";
import {
  isLeftOut,
  LEADING_INDENT,
  MarkdownWriter,
  RECORD_END,
  RECORD_START,
  squash,
  type UrlOptions,
} from "./markdown-writer.js";

/** Where the page text starts, after the structured data block. */
export const PAGE_TEXT_MARK = "--- page text ---";

export interface ModelContent {
  /** Title and URL: repeated at the top of every part of a long page. */
  header: string;
  /**
   * The structured-data block, then the page text cut at its headings and at the boundaries of the records of its
   * lists (a record is never cut at a heading inside it): the units a long page is split on.
   */
  sections: string[];
  /** Everything, as one text: header and sections. */
  text: string;
}

/** Never content: code, styling, embedded documents and form controls. */
const NEVER_CONTENT =
  "script, style, noscript, svg, template, iframe, object, embed, canvas, button, input, select, textarea";
/** Site navigation, wherever it is. */
const NAVIGATION = 'nav, [role="navigation"], form[role="search"]';
/** Page furniture; kept when inside an article or main, where it often holds the byline or date. */
const FURNITURE = 'footer, aside, [role="contentinfo"], [role="complementary"], [role="banner"]';
/** Cookie and consent banners, recognised by the class and id names the common tools use. */
const CONSENT_HINT =
  /\b(cookie|consent|gdpr)[-_]?(banner|notice|bar|popup|modal|dialog|wall|consent|overlay)\b|\b(onetrust|cookiebot|cookie-?law|cc-window)/i;

/**
 * Class or id names (whole names, not parts: "share" must not match
 * "shared-content") that the common CMS themes and plugins give comment
 * threads, related-post lists, share bars, newsletter boxes and sidebars.
 */
const BOILERPLATE_NAMES = new Set([
  "comments",
  "comment-list",
  "commentlist",
  "comments-area",
  "comment-respond",
  "comment-form",
  "respond",
  "disqus_thread",
  "related-posts",
  "relatedposts",
  "jp-relatedposts",
  "related-articles",
  "related-content",
  "related-stories",
  "yarpp-related",
  "share-buttons",
  "social-share",
  "sharedaddy",
  "share-links",
  "social-links",
  "sharing",
  "social-icons",
  "newsletter",
  "newsletter-signup",
  "subscribe-form",
  "sidebar",
  "widget-area",
]);

/** Meta names worth showing the model; the rest (viewport, robots, theme-color, ...) is noise. */
const META_PREFIXES = ["og:", "twitter:", "article:", "product:", "book:", "profile:", "music:", "video:"];
const META_NAMES = new Set(["description", "keywords", "author"]);

const LINK_WORDS = new Set(["url", "urls", "link", "links", "href", "website", "homepage", "permalink"]);
const IMAGE_WORDS = new Set([
  "image",
  "images",
  "img",
  "photo",
  "photos",
  "picture",
  "pictures",
  "thumbnail",
  "logo",
  "icon",
]);

/**
 * Which URLs the schema's field names (at any depth) ask for: `image_url` wants image URLs, `website` or `product_url`
 * link URLs.
 */
export function urlsWanted(tree: ObjectNode): UrlOptions {
  const wanted: UrlOptions = { links: false, images: false };
  const visit = (node: SchemaNode): void => {
    if (node.kind === "array") visit(node.items);
    if (node.kind !== "object") return;
    for (const field of node.fields) {
      const tokens = nameTokens(field.name);
      if (tokens.some((token) => IMAGE_WORDS.has(token))) wanted.images = true;
      else if (tokens.some((token) => LINK_WORDS.has(token))) wanted.links = true;
      visit(field.node);
    }
  };
  visit(tree);
  return wanted;
}

/**
 * Writes the page for the model. Boilerplate is left out while writing,
 * not removed: the document stays whole for the engines and for template
 * learning, whatever order they read it in. `records` are the records of the
 * lists the schema asks for (each one or more sibling elements): they are
 * never left out as boilerplate (a comment thread is the content when
 * comments are asked for), and each is a unit of its own.
 */
export function writeModelContent(
  page: Page,
  urls: UrlOptions = { links: true, images: true },
  records: Element[][] = [],
): ModelContent {
  const body = writeBody(page.$, page.baseUrl, urls, records);
  const header = [
    ...(page.structured.title ? [`Title: ${page.structured.title}`] : []),
    ...(page.baseUrl ? [`URL: ${page.baseUrl.href}`] : []),
  ].join("\n");
  const bodySections = body ? splitAtRecords(`${PAGE_TEXT_MARK}\n${body}`) : [];
  const sections = [structuredDataBlock(page.structured, { urls, inText: textIndex(body) }), ...bodySections].filter(
    (s) => s !== "",
  );
  return { header, sections, text: [header, ...sections].filter((s) => s !== "").join("\n\n") };
}

/** Sections start at markdown headings (the writer puts every heading on its own line). */
function splitAtHeadings(text: string): string[] {
  return text.split(/\n\n(?=#{1,6} )/);
}

/** The text between records cut at its headings, and each record a section of its own. */
function splitAtRecords(text: string): string[] {
  const sections: string[] = [];
  const between = (part: string) => {
    const trimmed = part.replaceAll(RECORD_END, "").trim();
    if (trimmed) sections.push(...splitAtHeadings(trimmed));
  };
  let at = 0;
  for (let start = text.indexOf(RECORD_START); start >= 0; start = text.indexOf(RECORD_START, at)) {
    const end = text.indexOf(RECORD_END, start);
    if (end < 0) break;
    between(text.slice(at, start));
    const record = text
      .slice(start + 1, end)
      .replaceAll(RECORD_START, "")
      .trim();
    if (record) sections.push(record);
    at = end + 1;
  }
  between(text.slice(at));
  return sections.map((section) => section.replaceAll(RECORD_START, "").replaceAll(RECORD_END, ""));
}

/** How the structured data block is cut down: URLs the schema does not want, long texts the page text shows anyway. */
interface Compaction {
  urls: UrlOptions;
  /** Whether the page text shows this text (compared without case and spacing). */
  inText: (text: string) => boolean;
}

/**
 * A long text that structured data states and the page shows too (a
 * recipe's steps, an article's description) costs its tokens twice: it is
 * cut to its first words, which still say what the property holds and
 * where to read it whole.
 */
const LONG_TEXT = 80;
const SHOWN_WORDS = 8;

function textIndex(body: string): (text: string) => boolean {
  const squashedBody = squash(body);
  return (text) => squashedBody.includes(squash(text));
}

function once(text: string, compaction: Compaction): string {
  if (text.length <= LONG_TEXT || !compaction.inText(text)) return text;
  return `${text.split(/\s+/).slice(0, SHOWN_WORDS).join(" ")} … (in the page text)`;
}

function structuredDataBlock(data: StructuredData, compaction: Compaction): string {
  const { urls } = compaction;
  const lines = data.jsonLd.flatMap((value) => {
    const compact = compactJsonLd(value, compaction);
    return compact === undefined ? [] : [`JSON-LD: ${JSON.stringify(compact)}`];
  });
  // The same text under several names (description, og:description, twitter:description) is shown once.
  const shown = new Set<string>();
  for (const [name, content] of data.meta) {
    if (!META_NAMES.has(name) && !META_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    if (META_NOISE.test(name) || shown.has(content) || (isUrl(content) && !urlWanted(name, urls))) continue;
    shown.add(content);
    lines.push(`${name}: ${once(content, compaction)}`);
  }
  return lines.length > 0 ? `--- structured data ---\n${lines.join("\n")}` : "";
}

/** Meta tags about how to display a share card (its size, type, layout), not about the page. */
const META_NOISE =
  /^(og|twitter):(image|video|audio)(:(width|height|type|secure_url))$|^twitter:(card|site|creator:id|site:id)$/;
/** JSON-LD keys whose values are images. */
const IMAGE_KEYS = new Set(["image", "logo", "thumbnail", "thumbnailUrl", "contentUrl", "photo"]);

/** A URL, but not a vocabulary term written as one ("https://schema.org/InStock" is a value). */
function isUrl(value: unknown): value is string {
  return (
    typeof value === "string" &&
    /^(https?:)?\/\/\S+$/.test(value.trim()) &&
    !/^(https?:)?\/\/schema\.org\/\w+$/.test(value.trim())
  );
}

/**
 * A URL under this name is worth its tokens: an image where the schema wants images, any other where it wants links.
 */
function urlWanted(name: string, urls: UrlOptions): boolean {
  return /image|logo|thumbnail|photo/i.test(name) ? urls.images : urls.links;
}

/** Site-wide JSON-LD that says nothing about this page's content. */
const JSON_LD_NOISE_TYPES = new Set([
  "WebSite",
  "BreadcrumbList",
  "SearchAction",
  "SiteNavigationElement",
  "WPHeader",
  "WPFooter",
  "WPSideBar",
]);
/** Keys for machines (linking, vocabulary, actions), not facts. */
const JSON_LD_NOISE_KEYS = new Set([
  "@context",
  "@id",
  "potentialAction",
  "mainEntityOfPage",
  "isPartOf",
  "breadcrumb",
  "inLanguage",
]);

/**
 * JSON-LD as the model needs it: site-wide nodes and linking keys dropped,
 * an image object reduced to its URL, a list of image sizes to its first,
 * and URLs the schema does not want (images, links) left out like the
 * page text leaves them out. JSON-LD graphs are often the largest single
 * block of a page.
 */
function compactJsonLd(value: unknown, compaction: Compaction, key = ""): unknown {
  const { urls } = compaction;
  if (Array.isArray(value)) {
    const items = value.map((item) => compactJsonLd(item, compaction, key)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isUrl(value)) return (IMAGE_KEYS.has(key) ? urls.images : urls.links) ? value : undefined;
  // Sites often write HTML entities into their JSON-LD ("&#188; cup"): the text, not its escapes.
  if (typeof value === "string") return once(decodeHTML(value), compaction);
  if (typeof value !== "object" || value === null) return value;
  const node = value as Record<string, unknown>;
  const types = ([] as unknown[]).concat(node["@type"] ?? []);
  if (types.some((type) => JSON_LD_NOISE_TYPES.has(String(type)))) return undefined;
  if (types.includes("ImageObject")) return urls.images ? (node.url ?? node.contentUrl) : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    if (JSON_LD_NOISE_KEYS.has(key)) continue;
    const compact = compactJsonLd(IMAGE_KEYS.has(key) && Array.isArray(child) ? child[0] : child, compaction, key);
    // A bare {"@id": ...} reference compacts to nothing: leave it out.
    if (compact === undefined || (typeof compact === "object" && compact !== null && Object.keys(compact).length === 0))
      continue;
    Object.defineProperty(out, key, { value: compact, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function writeBody($: CheerioAPI, baseUrl: URL | undefined, urls: UrlOptions, records: Element[][]): string {
  const root = bodyOf($) ?? $.root().get(0);
  const out = leftOut($);
  // What holds a record is not boilerplate, whatever its class says; records inside a record are not marked.
  for (const record of records) for (let at = record[0]?.parent ?? null; at; at = at.parent) out.delete(at);
  // Text the markup hides is never shown, not even inside a record: it is no reader's content, and what grounding
  // checks the model's values against (aria-hidden text stays: a sighted reader sees it).
  for (const element of $("[hidden], [style]")) if (isInlineHidden(element)) out.add(element);
  const marked = new Map<AnyNode, string>();
  for (const record of records) {
    if (record.length === 0 || record.some((element) => isInside(element, marked))) continue;
    marked.set(record[0]!, RECORD_START);
    marked.set(record.at(-1)!, `${marked.get(record.at(-1)!) ?? ""}${RECORD_END}`);
  }
  const raw = root ? new MarkdownWriter($, baseUrl, urls, out, marked).children(root) : "";
  return raw
    .split("\n")
    .map((line) =>
      line
        .trim()
        .replace(/[ \t]{2,}/g, " ")
        .replace(LEADING_INDENT, (indent) => "  ".repeat(indent.length)),
    )
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * What the model is not shown: never-content, navigation, page furniture outside the article, boilerplate blocks
 * without the page's heading.
 */
function leftOut($: CheerioAPI): Set<AnyNode> {
  const out = new Set<AnyNode>([...$(NEVER_CONTENT), ...$(NAVIGATION)]);
  for (const element of $(FURNITURE)) if ($(element).closest("article, main").length === 0) out.add(element);
  for (const element of $("[id], [class]")) {
    // A block that holds the page's shown heading is the content, whatever its class says. Asked last, of boilerplate
    // only: searching every classed element's subtree costs a list page its records times their depth.
    const holdsHeading = () =>
      $(element)
        .find("h1")
        .toArray()
        .some((heading) => !isLeftOut(heading, out));
    if (isBoilerplate(element) && !["html", "body", "main", "article"].includes(element.name) && !holdsHeading())
      out.add(element);
  }
  return out;
}

/** Whether an ancestor of the node is a record's element already marked. */
function isInside(node: AnyNode, marked: Map<AnyNode, string>): boolean {
  for (let at = node.parent; at; at = at.parent) if (marked.has(at)) return true;
  return false;
}

function isBoilerplate(element: Element): boolean {
  const id = element.attribs.id ?? "";
  const classes = element.attribs.class ?? "";
  if (CONSENT_HINT.test(`${id} ${classes}`)) return true;
  return [id, ...classes.split(/\s+/)].some((name) => BOILERPLATE_NAMES.has(name.toLowerCase()));
}

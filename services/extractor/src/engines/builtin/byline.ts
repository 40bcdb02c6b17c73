/**
 * What a reader sees beside an article's heading: who wrote it and when.
 * Metadata often says something else (the date of the last edit, the site's
 * name as the author), and the visible byline is what a person would copy.
 * Pages mark authors in a few generic ways (rel="author", author and byline
 * classes, author archive links, hCard names); dates are read from the text
 * just before and after the main heading.
 */
import type { CheerioAPI } from "cheerio";
import type { AnyNode, Element, Text } from "domhandler";
import { bodyOf, collapsed, isHidden, isHiddenWithin, NOT_TEXT, ownText, squashed } from "../../page/elements.js";
import { datesIn } from "../../schema/normalize.js";
import type { Scored } from "./match.js";

export interface Byline {
  author: Scored<string> | undefined;
  date: Scored<string> | undefined;
}

/** `headline` is the page's heading as the engine reads it, which tells the article's <h1> from a logo's. */
export function readByline($: CheerioAPI, headline: string | undefined): Byline {
  const heading = mainHeading($, headline);
  return { author: visibleAuthor($, heading), date: heading && visibleDate($, heading) };
}

/**
 * How far from the heading a date still belongs to it: bylines sit just below a heading, breadcrumbs and kickers just
 * above.
 */
const CHARS_AFTER = 600;
const CHARS_BEFORE = 300;

/** The date written closest to the main heading (a date below it is the likelier byline). */
function visibleDate($: CheerioAPI, heading: Element): Scored<string> | undefined {
  const { text, start, end, nodeAt } = textAround($, heading);
  let best: { date: string; distance: number; index: number } | undefined;
  for (const { index, date } of datesIn(text)) {
    const within = index >= end ? index - end <= CHARS_AFTER : index < start && start - index <= CHARS_BEFORE;
    // Above the heading counts double: a date there is as often a breadcrumb's or a teaser's.
    const distance = index >= end ? index - end : (start - index) * 2;
    if (within && distance < (best?.distance ?? Number.POSITIVE_INFINITY)) best = { date, distance, index };
  }
  if (!best) return undefined;
  const node = nodeAt(best.index);
  const element = node?.parent?.type === "tag" ? (node.parent as Element) : undefined;
  return {
    value: best.date,
    confidence: 0.7,
    origin: { source: "byline", text: node && collapsed(node.data), element },
  };
}

function mainHeading($: CheerioAPI, headline: string | undefined): Element | undefined {
  const named =
    headline === undefined
      ? undefined
      : $("h1")
          .filter((_, h1) => collapsed($(h1).text()) === collapsed(headline))
          .get(0);
  return named ?? $("article h1").get(0) ?? $("h1").get(0);
}

/**
 * The page's text up to CHARS_AFTER past the heading, with where the heading
 * starts and ends in it, and the text node at a place in it.
 */
function textAround(
  $: CheerioAPI,
  heading: Element,
): { text: string; start: number; end: number; nodeAt: (index: number) => Text | undefined } {
  const body = bodyOf($) ?? $.root().get(0)!;
  let text = "";
  let start = -1;
  let end = -1;
  const nodes: { at: number; node: Text }[] = [];
  const walk = (node: AnyNode): boolean => {
    if (end >= 0 && text.length > end + CHARS_AFTER) return false;
    if (node.type === "text") {
      nodes.push({ at: text.length, node: node as Text });
      text += ` ${collapsed(node.data)}`;
    }
    // Navigation is not the article: its dates belong to other pages.
    if (node.type !== "tag" || NOT_TEXT.has(node.tagName) || node.tagName === "nav" || isHidden(node)) return true;
    if (node === heading) start = text.length;
    for (const child of node.children) if (!walk(child)) return false;
    if (node === heading) end = text.length;
    return true;
  };
  walk(body);
  const from = Math.max(0, start - CHARS_BEFORE);
  const nodeAt = (index: number) => {
    let found: Text | undefined;
    for (const { at, node } of nodes) {
      if (at > index + from) break;
      found = node;
    }
    return found;
  };
  return { text: text.slice(from), start: start - from, end: end - from, nodeAt };
}

/** Words in class, id, rel or itemprop that mark an author's name. */
const AUTHOR_MARK = /(^|[\s_-])(author|authors|byline|autor|autorin|autoren|redakteur|writer|p-author)([\s_-]|$)/i;
/** Where other people's names sit: comments, related posts, sidebars. */
const ELSEWHERE = /(^|[-_])(comments?|commentlist|related|sidebar|footer|teaser|recent|share|social)([-_]|$)/i;
const AUTHOR_LINK = /\/(author|authors|autor|autoren)\/[^/]/i;
const MAX_AUTHOR_CHARS = 80;

/**
 * The author name the page marks nearest its main heading, outside comments
 * and sidebars. Strong marks first (rel="author", itemprop="author", author
 * archive links, hCard names), then elements whose class says author or
 * byline; within each, the nearest to the heading (below it before above).
 */
function visibleAuthor($: CheerioAPI, heading: Element | undefined): Scored<string> | undefined {
  const elements = $("body *").toArray();
  const headingAt = heading ? elements.indexOf(heading) : 0;
  let best: { name: string; rank: number; element: Element } | undefined;
  elements.forEach((element, at) => {
    if (element.type !== "tag") return;
    const bylineText =
      at > headingAt && at - headingAt <= BYLINE_ELEMENTS && BYLINE_TEXT.test(collapsed(ownText(element)));
    const strength = authorMark(element) || (bylineText ? 1 : 0);
    if (strength === 0) return;
    const distance = at >= headingAt ? at - headingAt : (headingAt - at) * 2;
    const rank = (2 - strength) * elements.length + distance;
    if (rank >= (best?.rank ?? Number.POSITIVE_INFINITY) || isElsewhere(element)) return;
    const named = $(element).find("[itemprop=name], .fn, a[rel~=author]").first();
    const shown = named.length > 0 && named.text() ? named : $(element);
    const name = authorName(shown.text());
    if (name) best = { name, rank, element: shown[0]! };
  });
  return (
    best && {
      value: best.name,
      confidence: 0.7,
      origin: { source: "byline", text: collapsed($(best.element).text()), element: best.element },
    }
  );
}

/** A person's name as a byline writes it: two to four capitalised words ("Julie Mollins"). */
const PERSON = "\\p{Lu}[\\p{L}.'’-]*(?:\\s+\\p{Lu}[\\p{L}.'’-]*){1,3}";
/** A short text of its own that is a byline ("Von Alexander Rosenkranz"), a few elements below the heading. */
const BYLINE_TEXT = new RegExp(`^([Bb]y|[Vv]on|[Pp]ar|[Pp]or|[Dd]oor)\\s+${PERSON}$`, "u");
const BYLINE_ELEMENTS = 40;

/** 2 for a strong mark of an author's name, 1 for an author or byline class, 0 for none. */
function authorMark(element: Element): number {
  const { rel = "", href = "", itemprop = "" } = element.attribs;
  if (/\bauthor\b/i.test(rel) || /\bauthor\b/i.test(itemprop) || (element.tagName === "a" && AUTHOR_LINK.test(href)))
    return 2;
  const marks = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`;
  if (/\bfn\b/.test(marks) && element.parent?.type === "tag" && AUTHOR_MARK.test(element.parent.attribs.class ?? ""))
    return 2;
  return AUTHOR_MARK.test(marks) && !/bio|avatar|image|img|photo|description|about/i.test(marks) ? 1 : 0;
}

/**
 * Whether the element sits where other pages' or people's content goes: comments, related posts, sidebars, footers.
 * Given the article's heading, what holds it holds the article too, and says only how the page is laid out.
 */
export function isElsewhere(element: Element, heading?: Element): boolean {
  const article = new Set<AnyNode>();
  for (let holder = heading?.parent; holder; holder = holder.parent) article.add(holder);
  // The <body>'s classes describe the whole page ("sidebar-right"), not a part of it.
  for (
    let parent = element.parent;
    parent?.type === "tag" && parent.tagName !== "body" && !article.has(parent);
    parent = parent.parent
  ) {
    if (parent.tagName === "footer" || parent.tagName === "aside") return true;
    if (`${parent.attribs.class ?? ""} ${parent.attribs.id ?? ""}`.split(/\s+/).some((token) => ELSEWHERE.test(token)))
      return true;
  }
  return false;
}

const BY_WORDS = "(by|von|from|par|por|di|door|av|text|autor|autorin|author|written by)";
const BY_WORD = new RegExp(`^${BY_WORDS}$`, "i");
/** The by-words in either case, for a pattern whose names must be capitalised (no "i" flag). */
const BY_WORDS_ANY_CASE = BY_WORDS.replace(/\p{L}/gu, (letter) => `[${letter}${letter.toUpperCase()}]`);
const LEADING_BY_WORD = new RegExp(`^${BY_WORDS}:?\\s+(?=\\S)`, "i");

/** An author's name as metadata sometimes gives it, after a by-word: "by Ben Popper" → "Ben Popper". */
export function withoutByWord(text: string): string {
  return text.replace(LEADING_BY_WORD, "");
}

/**
 * An author's name without the words before it that start with the site's name ("FOCUS-Online-Experte Robin
 * Tschöpe" on FOCUS Online → "Robin Tschöpe"): a role at the publication, not part of the name. A name of two words
 * or more stays. `siteNames` are squashed.
 */
export function withoutSiteRole(text: string, siteNames: string[]): string {
  const words = text.split(/\s+/);
  let start = 0;
  while (
    words.length - start > 2 &&
    siteNames.some((site) => site.length >= MIN_SITE_CHARS && squashed(words[start]!).startsWith(site))
  )
    start += 1;
  return words.slice(start).join(" ");
}

/** Shorter site names ("bz", "ok") start too many words to tell a role by. */
const MIN_SITE_CHARS = 4;

/** "Von Julia Müller | 12.03.2022" → "Julia Müller": the words before the name and what follows a separator go. */
function authorName(raw: string): string | undefined {
  const text = raw
    .replace(/\s+/g, " ")
    .trim()
    .split(/\s+[|·•]\s+|\s+[-–—]\s+(?=\d)/)[0]!
    .replace(new RegExp(`^(.{0,30}?\\b)?${BY_WORDS}:?\\s+`, "i"), "")
    .replace(/^[\s:,]+|[\s,:|–—-]+$/g, "");
  if (!text || text.length > MAX_AUTHOR_CHARS || datesIn(text).length > 0 || !/\p{L}/u.test(text) || BY_WORD.test(text))
    return undefined;
  return text;
}

/**
 * A person the article's own text credits: a short paragraph below the heading that ends with a by-word and a name
 * ("Written by: Julie Mollins", "Eine Kolumne von Nils Pickert") or starts with them before a separator ("By Kim
 * Lee | Forests News"). Syndicated posts and columns credit their writer this way while the data names the site or
 * the account that posted them. Not in related posts, sidebars or comments, nor a picture's credit.
 */
export function readCredit($: CheerioAPI, headline: string | undefined): Scored<string> | undefined {
  const heading = mainHeading($, headline);
  // Selected in document order: the paragraphs after the heading are the article's text.
  const nodes = $("h1, p").toArray();
  const after = heading ? nodes.indexOf(heading) + 1 : 0;
  for (const paragraph of nodes.slice(after, after + MAX_CREDIT_PARAGRAPHS)) {
    if (paragraph.tagName !== "p") continue;
    const text = collapsed($(paragraph).text());
    const match = text.length <= MAX_CREDIT_CHARS ? CREDIT.exec(text) : null;
    if (!match || PICTURE.test(match[1] ?? "") || isElsewhere(paragraph, heading) || isHiddenWithin(paragraph))
      continue;
    if ($(paragraph).closest("figure, figcaption").length > 0) continue;
    return {
      value: match[3]!.replace(/\.$/, ""),
      confidence: 0.7,
      origin: { source: "byline", text, element: paragraph },
    };
  }
  return undefined;
}

/** A few words may come before the by-word ("Eine Kolumne von"); a separator and a few more after the name. */
const CREDIT = new RegExp(
  `^(?:(.{0,30}?)\\s+)?${BY_WORDS_ANY_CASE}:?\\s+(${PERSON})(?:\\s*[|·•,–—]\\s.{0,40})?\\.?$`,
  "u",
);
/** What credits a picture, not the text ("Photo by Jane Doe"). */
const PICTURE = /\b(photos?|fotos?|bild|bilder|images?|pictures?|illustrations?|grafik|video)\b/i;
const MAX_CREDIT_CHARS = 120;
/** The credit is near the text's start or end; the paragraphs past this many are rarely the article's. */
const MAX_CREDIT_PARAGRAPHS = 80;

/**
 * Interface text: the words a page shows to be clicked or waited on rather
 * than read (more, show more, loading…, next, share, "view other products
 * from …"), and lists of links (a menu). These are furniture on any site, so
 * they are never a field's value: a value that is one is no answer, and one
 * that ends in one is read without it ("US-FL-Miami Loading Map..." is
 * "US-FL-Miami").
 */
import { type Element, isTag } from "domhandler";
import { collapsed, elementsUnder, textOf } from "../../page/elements.js";
import type { NameHints } from "../../schema/field-names.js";
import { singular } from "./match.js";

/** What a control acts on: "show more", "view other products from …", "see all reviews". */
const ACTED_ON = String.raw`(?:more|less|all|full|other|details|map|the rest|reviews?|comments?|photos?|images?|gallery)\b`;
/** Controls: a verb that acts on the page with what it acts on, or a control's word alone ("(more)", "Next"). */
const CONTROL = new RegExp(
  String.raw`^(?:(?:show|read|see|view|load|expand|hide|click for) ${ACTED_ON}[^:]{0,40}|(?:share|tweet|email|print|subscribe|sign in|sign up|log ?in|log out)(?: (?:this|on|via|to)\b.{0,30})?|add to (?:cart|bag|basket|wish ?list)|more|less|next|previous|prev|back|top|back to top|more info|more details|details|full details|(?:go to )?page \d+)$`,
  "i",
);
/** Text shown while something loads, or a placeholder cut short ("Loading Map...", "…"). */
const PLACEHOLDER = /^(?:loading\b.*|please wait\b.*|[-–—.…]+)$/i;
/** Pagination: page numbers with the arrows or words that move between pages ("1 2 3 Next »", "« Prev 4 5"). */
const PAGE_STEP = String.raw`(?:«|‹|<|prev(?:ious)?|next|first|last|»|›|>|\.\.\.|…)`;
const PAGINATION = new RegExp(
  String.raw`^(?=.*${PAGE_STEP})(?:${PAGE_STEP}|\d{1,3})(?:\s+(?:${PAGE_STEP}|\d{1,3})){2,}$`,
  "i",
);

/**
 * A control after the value that says it is one whatever the markup: a bracketed "(more)", "more »", "Loading
 * Map...". Other controls are cut only where they are elements of their own (withoutInterfaceTail).
 */
const MARKED_TAIL = new RegExp(
  String.raw`\s+(?:[([](?:more|less|(?:show|read|see|view) ${ACTED_ON}[^()[\]]{0,20})[)\]]|(?:more|less)\s*(?:\.\.\.|…|»|›|>+)|loading\b[^()[\]]{0,30}(?:\.\.\.|…))$`,
  "i",
);

/** Brackets, arrows and dots around a control's words: "(more)", "» Next", "Read more…". */
function bare(text: string): string {
  return collapsed(text)
    .replace(/^[\s([{«‹<»›>|·•]+|[\s)\]}»›>|·•:]+$/g, "")
    .replace(/(?:\.\.\.|…)$/, "")
    .trim();
}

/** The whole text is interface, not content. */
export function isInterfaceText(text: string): boolean {
  const plain = bare(text);
  if (plain === "") return PLACEHOLDER.test(collapsed(text)) || collapsed(text) === "";
  return CONTROL.test(plain) || PLACEHOLDER.test(plain) || PAGINATION.test(collapsed(text));
}

/**
 * The value without the control that follows it: one that says it is one (MARKED_TAIL), or the interface text of an
 * element of its own at the end of `element`, where the value was read ("3506B001<br><a>View other products from
 * Canon</a>"). The text as it is when nothing would be left.
 */
export function withoutInterfaceTail(text: string, element?: Element): string {
  let cut = text.replace(MARKED_TAIL, "").trim();
  if (element)
    for (const inner of elementsUnder(element, MAX_INNER).reverse()) {
      const shown = textOf(inner);
      if (shown !== "" && shown.length < cut.length && cut.endsWith(shown) && isInterfaceText(shown))
        cut = cut.slice(0, -shown.length).trim();
    }
  return cut === "" ? text : cut;
}

/** How many elements of a value are looked at for a control: a value is small. */
const MAX_INNER = 50;

/** Links that make up at least this share of an element's text make it a list of links, not one value. */
const LINK_SHARE = 0.8;
const MIN_LIST_LINKS = 3;

/** A list of links (a menu, tags, breadcrumbs): three or more links that hold most of the element's text. */
export function isLinkList(element: Element): boolean {
  const links: Element[] = [];
  const walk = (node: Element): void => {
    for (const child of node.children)
      if (isTag(child)) {
        if (child.tagName === "a") links.push(child);
        else walk(child);
      }
  };
  walk(element);
  if (links.length < MIN_LIST_LINKS) return false;
  const all = textOf(element).replace(/\s/g, "").length;
  const linked = links.reduce((sum, link) => sum + textOf(link).replace(/\s/g, "").length, 0);
  return all > 0 && linked / all >= LINK_SHARE;
}

/** Words of names whose values are quantities: such a value states a number. */
const NUMBER_WORDS = new Set([
  "count",
  "number",
  "num",
  "price",
  "cost",
  "amount",
  "weight",
  "height",
  "width",
  "length",
  "depth",
  "score",
  "year",
  "age",
  "phone",
  "isbn",
  "quantity",
  "qty",
  "mileage",
  "mpg",
  "economy",
  "temperature",
]);

/** Words of names whose values are people. */
const PERSON_WORDS = new Set([
  "author",
  "authors",
  "writer",
  "creator",
  "byline",
  "editor",
  "director",
  "player",
  "artist",
]);
/** How an address writes a name ("sarah-indra"): lower case joined by dashes, never how a page shows a person. */
const SLUG = /^[a-z0-9]+(?:[-_][a-z0-9]+)+$/;

/** The field's name asks for one thing (`team`, `author`), not several (`genres`, `tags`). */
function namesOne(hints: NameHints): boolean {
  const last = hints.subject.at(-1);
  return last !== undefined && singular(last) === last;
}

/**
 * A page text fails the field's name: interface text, a number-named field's text with no digit in it, a
 * person-named field's text written as an address slug, or one thing's field answered by a list of links. `element` is where the text was read, when known.
 */
export function failsName(text: string, hints: NameHints, element: Element | undefined): boolean {
  if (isInterfaceText(text)) return true;
  if (hints.subject.some((word) => NUMBER_WORDS.has(word)) && !/\d/.test(text)) return true;
  if (hints.subject.some((word) => PERSON_WORDS.has(word)) && SLUG.test(text.trim())) return true;
  return element !== undefined && namesOne(hints) && isLinkList(element);
}

/**
 * Item fields and the kinds of value their names ask for: a title, a price,
 * a count, a date, a list, read from the words of the field's name (and the
 * array's), with the other words pages use for them.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import { type NameHints, nameHints, nameTokens } from "../../../schema/field-names.js";
import { LABEL_SYNONYMS } from "../concepts.js";
import { singular } from "../match.js";

type Kind =
  | "title"
  | "text"
  | "url"
  | "price"
  | "rating"
  | "count"
  | "rank"
  | "number"
  | "date"
  | "ad"
  | "boolean"
  | "list"
  | "string";

export interface ItemField {
  name: string;
  node: SchemaNode;
  hints: NameHints;
  kind: Kind;
  /** Groups of singular words, each naming the field in markup when all of its words are there; the first is the field's own. */
  names: string[][];
  /** Weaker names: the head word of a compound name ("title" of `course_title`). */
  heads: string[][];
  /** The list's own word, singular (`topics` → topic): a table column headed by it holds the records' titles. */
  listWord: string;
}

/** Words of a field's subject and the kind of value they ask for. */
const TITLE_WORDS = new Set(["title", "name", "headline", "heading"]);
const TEXT_WORDS = new Set([
  "description",
  "snippet",
  "summary",
  "text",
  "body",
  "content",
  "excerpt",
  "abstract",
  "quote",
  "teaser",
  "blurb",
  "review",
  "comment",
  "message",
  "lede",
  "caption",
  "subtitle",
]);
const URL_WORDS = new Set(["url", "link", "href", "permalink"]);
const DATE_WORDS = new Set([
  "date",
  "time",
  "released",
  "published",
  "posted",
  "updated",
  "created",
  "year",
  "iso8601",
]);
const AD_WORDS = new Set(["sponsored", "ad", "ads", "advert", "advertisement", "promoted", "promotion", "paid"]);
const PRICE_WORDS = new Set(["price", "cost", "fee", "amount"]);
const RATING_WORDS = new Set(["rating", "score", "stars", "star"]);
const RANK_WORDS = new Set(["rank", "ranking", "position", "place"]);
const COUNT_WORDS = new Set(["count", "number", "num", "total", "votes", "views"]);

/** The last words of a date's name that say its form, not what it dates. */
const DATE_FORM_WORDS = new Set(["date", "time", "at", "on", "datetime", "timestamp"]);

/** Head words too general to name a field alone. */
const GENERIC_HEADS = new Set(["count", "number", "num", "total", "value", "id", "type", "date", "time"]);

/** Other words pages use for a list field's concept, beside the engine's label synonyms. */
const LIST_SYNONYMS = new Map<string, string[]>(
  Object.entries({
    title: ["name", "headline", "heading"],
    name: ["title"],
    price: ["cost", "amount"],
    rating: ["star", "rate", "score"],
    point: ["score", "vote", "upvote", "karma"],
    comment: ["reply", "discussion"],
    "review count": ["review", "rating", "ratings count", "review number"],
    "rating count": ["rating", "review"],
    author: ["user", "username", "poster", "submitter", "byline", "creator", "owner"],
    instructor: ["teacher", "tutor", "lecturer", "author"],
    language: ["lang"],
    description: ["desc", "summary", "snippet", "abstract", "excerpt", "teaser", "caption"],
    snippet: ["description", "summary", "excerpt", "abstract", "caption", "desc"],
    summary: ["description", "snippet", "excerpt", "abstract"],
    shipping: ["delivery"],
    date: ["time", "posted", "published"],
    posted: ["date", "time", "published", "age"],
    published: ["date", "time", "posted"],
    "date posted": ["posted", "date", "time", "age"],
    "published date": ["published", "date", "time"],
    "release date": ["released", "release"],
    url: ["link", "href"],
    link: ["url", "href"],
    tag: ["label", "category", "keyword", "topic"],
    lecture: ["lesson", "video"],
    location: ["place", "city", "address"],
    company: ["employer", "organization", "org"],
  }),
);

export function describeFields(item: ObjectNode, arrayHints: NameHints): ItemField[] {
  const arrayWord = singular(arrayHints.subject.join(""));
  return item.fields.map(({ name, node }) => {
    const hints = nameHints(name);
    const subject = hints.subject.map(singular);
    const key = subject.join(" ");
    const synonyms = [...(LABEL_SYNONYMS.get(key) ?? []), ...(LIST_SYNONYMS.get(key) ?? [])].map((s) =>
      nameTokens(s).map(singular),
    );
    const head = subject.at(-1);
    const heads =
      subject.length > 1 && head && !GENERIC_HEADS.has(head)
        ? [[head], ...(LIST_SYNONYMS.get(head) ?? []).map((s) => nameTokens(s).map(singular))]
        : [];
    const kind = kindOf(node, hints, arrayWord);
    // A date's name often ends in the word for its form (`last_post_time`, `posted_date`), which its label leaves out:
    // "Last Post" over a column of dates names it.
    const dated =
      kind === "date" && subject.length > 1 && DATE_FORM_WORDS.has(head ?? "") ? [subject.slice(0, -1)] : [];
    return {
      name,
      node,
      hints,
      kind,
      names: [subject, ...dated, ...synonyms].filter((n) => n.length > 0),
      heads,
      listWord: arrayWord,
    };
  });
}

function kindOf(node: SchemaNode, hints: NameHints, arrayWord: string): Kind {
  const words = hints.subject;
  const has = (set: Set<string>) => words.some((word) => set.has(word) || set.has(singular(word)));
  if (node.kind === "array") return node.items.kind === "scalar" && node.items.type === "string" ? "list" : "string";
  if (node.kind !== "scalar") return "string";
  if (node.type === "boolean") return has(AD_WORDS) ? "ad" : "boolean";
  if (node.type === "number" || node.type === "integer") {
    if (has(RANK_WORDS)) return "rank";
    if (hints.currency || has(PRICE_WORDS)) return "price";
    if (has(COUNT_WORDS)) return "count";
    if (has(RATING_WORDS) && !isPlural(words.at(-1)!)) return "rating";
    return isPlural(words.at(-1) ?? "") ? "count" : "number";
  }
  if (hints.format === "url" || has(URL_WORDS)) return "url";
  if (hints.format === "iso8601" || has(DATE_WORDS)) return "date";
  if (has(TEXT_WORDS)) return "text";
  if (has(TITLE_WORDS) || singular(words.join("")) === arrayWord) return "title";
  return "string";
}

/** Whether a field's name is a price's ("price", "price_text"), whatever type it asks for. */
export function namesPrice(field: ItemField): boolean {
  return field.hints.subject.some((word) => PRICE_WORDS.has(singular(word)) || PAY_WORDS.has(singular(word)));
}

/** Amounts of money paid for work, asked for as text ("$41,000", "£30k a year"): written with a currency as prices are. */
const PAY_WORDS = new Set(["salary", "pay", "wage", "compensation"]);

function isPlural(word: string): boolean {
  return singular(word) !== word;
}

/** Fields an element answers without text: a link's address, a rating or a number in a labelling attribute. */
export const READ_WITHOUT_TEXT = new Set<Kind>(["url", "rating", "number"]);

/** Fields read as numbers, which may share a text where they read different numbers in it. */
export const NUMBER_KINDS = new Set<Kind>(["price", "rating", "count", "number", "rank"]);

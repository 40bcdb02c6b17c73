/**
 * The fields of a list's records, by the column principle: each item field
 * is answered by one column (the same relative place in every record), so
 * that records agree on where a value comes from. A column answers a field
 * by what the page says about it (the words its markup names it by, the
 * words of its ancestors inside the record, of an icon before it, of its
 * labelling attributes, the unit written after its number, "1,145 points")
 * or by the role of its place (a record's main link holds its title and its
 * address, its longest text its description, numbers 1, 2, 3 its rank), and
 * only where its values read as the field's type in most records. Each
 * column answers one field; a record without an element there answers null.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import { type Element, isTag, isText } from "domhandler";
import { collapsed, NOT_TEXT } from "../../../page/elements.js";
import { absoluteUrl } from "../../../page/page.js";
import { type NameHints, nameHints, nameTokens } from "../../../schema/field-names.js";
import { datesIn, firstNumber, isoDate, parseBoolean, parseNumber } from "../../../schema/normalize.js";
import { LABEL_SYNONYMS } from "../concepts.js";
import { singular, withoutOwnLabel } from "../match.js";
import { type Column, type Columns, isWithin } from "./columns.js";
import { currencyOf, wordsOf as markupWords, valueText } from "./memo.js";
import { aboveAnother, perUnitPlaces, readPrice } from "./prices.js";

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

/** A part set apart from the one before it: after a bullet, a bar, a dash, or in brackets. */
const ASIDE = /^[•·|–—([-]/;
/** A name's leading by-word ("by Ann Lee"); only unambiguous ones, as a name may begin with "Di" or "Van". */
const BY_WORDS = "by|von|par|por";
const BY_WORD = new RegExp(`^(${BY_WORDS})\\s+(?=\\S)`, "i");
/** The same word alone, as a label before a name. */
const BY_LABEL = new RegExp(`^(${BY_WORDS})$`, "i");
/** Words of an old price beside the current one ("was $18.99", a struck-through list price). */
const OLD_PRICE_WORDS = new Set([
  "was",
  "old",
  "strike",
  "strikethrough",
  "before",
  "regular",
  "list",
  "original",
  "rrp",
  "msrp",
  "previous",
  "compare",
  "crossed",
  "del",
]);
/** A quick look for the words of AD_MARKUP in a class or id, before they are split into words. */
const AD_HINT = /ad|sponsor|promot|advert/i;
/** Words of markup that mark an ad ("adSlot", "sponsored-result"; singular). */
const AD_MARKUP = new Set(["sponsored", "ad", "advert", "advertisement", "promoted"]);
/** Texts that mark a record as an ad, in the languages shops commonly use. */
export const AD_TEXT =
  /^(sponsored|sponsorisé|gesponsert|patrocinado|sponsorizzato|gesponsord|ad|ads|advertisement|anzeige|annonce|promoted|publicidad|pubblicità)( (result|results|listing|listings|post|product|products|ad|link|links|by .*))?\s*[·•:|-]?$/i;

/** How strongly each kind of evidence says that a column answers a field. */
const EVIDENCE = {
  own: 1,
  unit: 1,
  ownPrefix: 0.85,
  ancestor: 0.8,
  icon: 0.8,
  // A label a reader sees before the value ("Location:") or a table's header over it.
  label: 0.9,
  head: 0.7,
  valueWord: 0.7,
  mainLink: 0.75,
  heading: 0.7,
  // A record's first line of text is its title where nothing else says which is (a card that is one link).
  firstText: 0.6,
  longest: 0.6,
  sequence: 0.8,
  typeOnly: 0.55,
  href: 0.5,
};
/** A column must read as the field's type in this share of the records that have it. */
const MIN_FIT = 0.6;
const MIN_SCORE = 0.35;
/** An old price is a column to avoid for a price. */
const OLD_PRICE = 0.3;
/** Cells whose words are read per column. */
const SAMPLE = 4;
/** A date written as text is short. */
const MAX_DATE_CHARS = 60;
/** Elements searched for a record's main link. */
const MAX_LINK_SEARCH = 400;
/** A description is at least this long on average, in characters and in words; found in this share of the records. */
const MIN_TEXT_CHARS = 20;
const MIN_TEXT_WORDS = 3;
const MOST = 0.25;

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
    return {
      name,
      node,
      hints,
      kind: kindOf(node, hints, arrayWord),
      names: [subject, ...synonyms].filter((n) => n.length > 0),
      heads,
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
function namesPrice(field: ItemField): boolean {
  return field.hints.subject.some((word) => PRICE_WORDS.has(singular(word)));
}

function isPlural(word: string): boolean {
  return singular(word) !== word;
}

/** A field's column, with the places that stand in for it on records without it, and how sure the choice is. */
export interface Chosen {
  column: Column;
  score: number;
  /** For a list field, the path whose elements are its items. */
  list?: string;
  alternates: Column[];
}

/** What a list's records are read with: the columns chosen for the fields and each record's main link. */
export interface Assignment {
  /** The column each field is read from (ad fields and unanswered fields have none). */
  columns: Map<string, Chosen>;
  /** How well the records fill the fields: the share of (record, field) pairs answered, ad fields aside. */
  fill: number;
  /** Whether the records answer enough fields: two (or every one, of fewer) in most records. */
  enough: boolean;
}

interface Context {
  records: Element[][];
  columns: Columns;
  baseUrl: URL | undefined;
}

/** Chooses a column for each field, each column answering one field at most. */
export function assignColumns(fields: ItemField[], context: Context): Assignment {
  const { records, columns } = context;
  const n = records.length;
  const words = new Map<Column, ColumnWords>();
  const wordsOf = (column: Column): ColumnWords => {
    let found = words.get(column);
    if (!found) {
      // The words of the places above it inside the record, up to the record's root and not including it: the root's name the record.
      const parent = column.parent && column.parent.depth > 0 ? column.parent : undefined;
      const above = parent ? wordsOf(parent) : undefined;
      found = readWords(column, above ? new Set([...above.markup, ...above.ancestors]) : new Set());
      words.set(column, found);
    }
    return found;
  };
  const texts = new Map<Column, (string | undefined)[]>();
  const textsOf = (column: Column) => {
    let found = texts.get(column);
    if (!found) {
      found = column.cells.map((cell) => (cell ? valueText(cell) : undefined));
      texts.set(column, found);
    }
    return found;
  };
  const mainLinks = mainLinkColumn(records, columns);
  const firstTexts = firstTextColumn(records, columns);
  const roles: Roles = {
    mainLinks,
    wholeLink: mainLinks !== undefined && isWholeRecord(mainLinks, firstTexts, records),
    firstTexts,
    headings: columns.columns.filter((column) => column.cells.some((cell) => cell && /^h[1-6]$/.test(cell.tagName))),
    columns,
    n,
  };

  type Choice = { field: ItemField; column: Column; score: number; list?: string };
  const choices: Choice[] = [];
  for (const field of fields) {
    if (field.kind === "ad") continue;
    if (field.kind === "list") {
      const list = listColumn(field, columns, wordsOf);
      if (list) choices.push({ field, ...list });
      continue;
    }
    const scored: Choice[] = [];
    for (const column of columns.columns) {
      if (column.count === 0 || (column.holdsRecords && field.kind !== "url") || !hasContent(column, field, textsOf))
        continue;
      const evidence = evidenceFor(field, column, wordsOf, textsOf, roles);
      if (evidence <= 0) continue;
      const fit = fitOf(field, column, textsOf(column), context);
      if (fit < MIN_FIT || ((field.kind === "title" || field.kind === "text") && !varies(textsOf(column)))) continue;
      const oldPrice = field.kind === "price" && isOldPrice(column, wordsOf) ? OLD_PRICE : 1;
      // A place counts by the records that show something there: an empty element on most records is a rare value.
      const shown = READ_WITHOUT_TEXT.has(field.kind) ? column.count : textsOf(column).filter((text) => text).length;
      const score = evidence * fit * oldPrice * (0.6 + (0.4 * Math.max(shown, 1)) / n);
      if (score >= MIN_SCORE) scored.push({ field, column, score });
    }
    if (field.kind === "price")
      for (const choice of [...aboveAnother(scored, field.hints), ...perUnitPlaces(scored)]) choice.score *= OLD_PRICE;
    // Of the places that may hold a description, the one with the longest texts, down to the part that holds most of it.
    if (field.kind === "text") {
      for (const choice of scored) choice.column = core(choice.column, columns, textsOf);
      const lengths = new Map(scored.map(({ column }) => [column, averageLength(textsOf(column))]));
      const longest = Math.max(0, ...lengths.values());
      for (const choice of scored) choice.score *= 0.5 + (0.5 * lengths.get(choice.column)!) / Math.max(longest, 1);
    }
    const sameValues = (inner: Column, outer: Column) =>
      NUMBER_KINDS.has(field.kind) && readsAlike(field, inner, outer, context, textsOf);
    choices.push(...preferInner(scored, field, mainLinks, sameValues));
  }
  choices.sort((a, b) => b.score - a.score);
  const chosen = new Map<string, Chosen>();
  const used: Column[] = [];
  const free = (column: Column) =>
    !used.some((other) => other === column || isWithin(other, column) || isWithin(column, other));
  const sharesNumbers = (field: ItemField, column: Column): boolean => {
    if (!NUMBER_KINDS.has(field.kind)) return false;
    const sharing = [...chosen].filter(([, other]) => other.column === column);
    if (sharing.length === 0 || !used.includes(column)) return false;
    return sharing.every(([name]) => {
      const other = fields.find((f) => f.name === name)!;
      if (!NUMBER_KINDS.has(other.kind)) return false;
      let both = 0;
      let differ = 0;
      for (let i = 0; i < n; i += 1) {
        const [a, b] = [
          readField(field, i, { column }, context, textsOf),
          readField(other, i, { column }, context, textsOf),
        ];
        if (a === undefined || b === undefined) continue;
        both += 1;
        if (a !== b) differ += 1;
      }
      return both > 0 && differ >= MOST_DIFFER * both;
    });
  };
  for (const choice of choices) {
    const primary = chosen.get(choice.field.name);
    if (primary) {
      // The same field named in another place on the records that lack the first one (a price inside an "offers" line).
      const places = [primary.column, ...primary.alternates];
      if (
        choice.field.kind === "list" ||
        choice.field.kind === "url" ||
        !isNamed(choice.field, choice.column, wordsOf, textsOf)
      )
        continue;
      if (
        choice.score < ALTERNATE * primary.score ||
        !places.every((place) => disjoint(place, choice.column)) ||
        !free(choice.column)
      )
        continue;
      primary.alternates.push(choice.column);
      used.push(choice.column);
      continue;
    }
    // A field read from an element's address shares it with the field read from its text (a title and its link),
    // and numbers read from one text share it where they read different numbers ("4.3 avg rating, 7,891 ratings").
    if (choice.field.kind !== "url") {
      if (!free(choice.column) && !sharesNumbers(choice.field, choice.column)) continue;
      used.push(choice.column);
    }
    chosen.set(choice.field.name, { column: choice.column, score: choice.score, list: choice.list, alternates: [] });
  }
  const counted = fields.filter((field) => field.kind !== "ad" && field.kind !== "boolean");
  let answered = 0;
  let held = 0;
  for (const field of counted) {
    const choice = chosen.get(field.name);
    if (!choice) continue;
    let inField = 0;
    for (let i = 0; i < n; i += 1) if (readField(field, i, choice, context, textsOf) !== undefined) inField += 1;
    answered += inField;
    if (inField * 2 >= n) held += 1;
  }
  // A list of titles alone (a "related" box of headings) is not the answer to an item of several fields.
  const enough = held >= Math.min(2, counted.length);
  return { columns: chosen, fill: counted.length > 0 ? answered / (counted.length * n) : 0, enough };
}

/** Whether a place shows anything a field could read: text, a labelling attribute (a rating's), a link (an address). */
function hasContent(column: Column, field: ItemField, textsOf: (column: Column) => (string | undefined)[]): boolean {
  // Numbers are written with digits.
  const digits = NUMBER_KINDS.has(field.kind);
  if (textsOf(column).some((text) => text !== undefined && text !== "" && (!digits || /\d/.test(text)))) return true;
  if (field.kind === "url") return column.cells.some((cell) => cell?.tagName === "a");
  if (field.kind === "rating" || field.kind === "number")
    return column.cells.some(
      (cell) =>
        cell !== undefined &&
        Object.keys(cell.attribs).some((name) => name === "aria-label" || name === "title" || name.startsWith("data-")),
    );
  return false;
}

/**
 * Where a column and its inner columns both answer a field, the inner one
 * is more exact ("author" inside "post-author"); of those nearly as sure,
 * the surest, then the deepest. A title's wrapper ("div.title" around the
 * heading's link and a "translate" link) gives its strength to the record's
 * main link inside it.
 */
function preferInner<T extends { column: Column; score: number }>(
  scored: T[],
  field: ItemField,
  mainLinks: Column | undefined,
  sameValues: (inner: Column, outer: Column) => boolean,
): T[] {
  return scored.map((choice) => {
    if (field.kind === "title" && mainLinks && choice.column !== mainLinks && isWithin(mainLinks, choice.column)) {
      const main = scored.find((other) => other.column === mainLinks);
      if (main) return { ...main, score: Math.max(main.score, choice.score) };
    }
    let best = choice;
    for (;;) {
      const outer = best;
      const inner = scored.filter(
        (other) =>
          other !== outer &&
          isWithin(other.column, outer.column) &&
          (other.score >= INNER * outer.score || sameValues(other.column, outer.column)),
      );
      if (inner.length === 0) break;
      best = inner.reduce((a, b) =>
        b.score > a.score || (b.score === a.score && b.column.depth > a.column.depth) ? b : a,
      );
    }
    return best;
  });
}

/**
 * Whether an inner place reads the same number as the outer one, never
 * another, in nearly every record where the outer one reads one: the
 * number's own element, more exact than a text that also holds other
 * numbers ("4.6 out of 5 stars 132,223").
 */
function readsAlike(
  field: ItemField,
  inner: Column,
  outer: Column,
  context: Context,
  textsOf: (column: Column) => (string | undefined)[],
): boolean {
  let read = 0;
  let both = 0;
  let shorter = 0;
  for (let i = 0; i < context.records.length; i += 1) {
    const b = readField(field, i, { column: outer }, context, textsOf);
    if (b === undefined) continue;
    read += 1;
    const a = readField(field, i, { column: inner }, context, textsOf);
    if (a === undefined) continue;
    if (a !== b) return false;
    both += 1;
    if ((textsOf(inner)[i] ?? "").length < (textsOf(outer)[i] ?? "").length) shorter += 1;
  }
  // Only where the inner text is a part of the outer one: the same text one level down is no more exact.
  return both > 0 && both >= NEARLY_ALL * read && shorter * 2 > both;
}

const NEARLY_ALL = 0.9;

/** Fields an element answers without text: a link's address, a rating or a number in a labelling attribute. */
const READ_WITHOUT_TEXT = new Set<Kind>(["url", "rating", "number"]);
/** Fields read as numbers, which may share a text where they read different numbers in it. */
const NUMBER_KINDS = new Set<Kind>(["price", "rating", "count", "number", "rank"]);
const MOST_DIFFER = 0.8;
/** An inner place this nearly as sure as the outer one is preferred. */
const INNER = 0.8;
/** A place that stands in for a field's column on the records without it is this nearly as sure. */
const ALTERNATE = 0.7;

interface ColumnWords {
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

function readWords(column: Column, ancestors: Set<string>): ColumnWords {
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

const tokens = new Map<string, string[]>();

/** A text's name tokens, remembered: records repeat the same labels and link paths. */
function cachedTokens(text: string): string[] {
  let found = tokens.get(text);
  if (!found) {
    if (tokens.size >= 5000) tokens.clear();
    found = nameTokens(text);
    tokens.set(text, found);
  }
  return found;
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

interface Roles {
  mainLinks: Column | undefined;
  /** Whether the main link wraps the whole record (a card that is one link): its text is not a title. */
  wholeLink: boolean;
  firstTexts: Column | undefined;
  headings: Column[];
  columns: Columns;
  n: number;
}

/** How strongly the page says that the column answers the field; 0 when it says nothing. */
function evidenceFor(
  field: ItemField,
  column: Column,
  wordsOf: (column: Column) => ColumnWords,
  textsOf: (column: Column) => (string | undefined)[],
  roles: Roles,
): number {
  const words = wordsOf(column);
  let best = Math.max(
    named(field.names, words.own) * EVIDENCE.own,
    named(field.names, words.ancestors) * EVIDENCE.ancestor,
    named(field.names, words.icon) * EVIDENCE.icon,
    named(field.names, words.label) * EVIDENCE.label,
    named(field.heads, words.own) * EVIDENCE.head,
    named(field.heads, words.ancestors) * EVIDENCE.head * EVIDENCE.ancestor,
  );
  const texts = textsOf(column);
  switch (field.kind) {
    case "title":
      if (column === roles.mainLinks && !roles.wholeLink) best = Math.max(best, EVIDENCE.mainLink);
      if (column === roles.firstTexts) best = Math.max(best, EVIDENCE.firstText);
      if (roles.headings.includes(column)) best = Math.max(best, EVIDENCE.heading);
      break;
    case "url":
      if (column === roles.mainLinks) best = Math.max(best, EVIDENCE.mainLink + 0.1);
      break;
    case "text":
      if (isProse(column, roles.mainLinks, texts)) best = Math.max(best, EVIDENCE.longest);
      break;
    case "count":
    case "number":
      if (share(texts, (text) => unitNames(text, field.names)) >= MIN_FIT) best = Math.max(best, EVIDENCE.unit);
      if (best === 0) best = named(field.names, words.href) * EVIDENCE.href;
      break;
    case "rank":
      if (isSequence(texts)) best = Math.max(best, EVIDENCE.sequence);
      break;
    case "rating":
      if (share(texts, (text) => OUT_OF.test(text)) >= MIN_FIT) best = Math.max(best, EVIDENCE.typeOnly + 0.1);
      if (
        share(texts, (text) => text.length <= 60 && unitNames(text, [...field.names, ...field.heads], true)) >= MIN_FIT
      )
        best = Math.max(best, EVIDENCE.valueWord);
      break;
    case "date":
      // A column of dates (or <time> elements) answers a date field that nothing names.
      if (best === 0 && share(texts, (text) => DATE_LIKE.test(text) || datesIn(text).length > 0) >= MIN_FIT)
        best = EVIDENCE.typeOnly;
      if (best === 0 && column.cells.every((cell) => cell === undefined || cell.tagName === "time"))
        best = EVIDENCE.typeOnly;
      break;
    case "price":
      if (best === 0 && share(texts, (text) => currencyOf(text) !== undefined) >= MIN_FIT) best = EVIDENCE.typeOnly;
      break;
    case "string":
      if (share(texts, (text) => text.length <= 60 && unitNames(text, field.names, true)) >= MIN_FIT)
        best = Math.max(best, EVIDENCE.valueWord);
      // A price asked for as text is still written with its currency ("CDN$ 21.99").
      if (best === 0 && namesPrice(field) && share(texts, (text) => currencyOf(text) !== undefined) >= MIN_FIT)
        best = EVIDENCE.typeOnly;
      // A link's address names what it links to ("/user?id=kim" for an author, "/company/acme" for a company).
      if (best === 0 && column.cells.some((cell) => cell?.tagName === "a"))
        best = named(field.names, words.href) * EVIDENCE.href;
      break;
    default:
      break;
  }
  return best;
}

/** 1 when some name's words are all in the markup words, 0.85 when they are there as prefixes ("ship" for shipping, "ratings" for rating), else 0. */
function named(names: string[][], words: Set<string>): number {
  if (words.size === 0) return 0;
  let best = 0;
  for (const name of names) {
    let all = true;
    let prefixed = true;
    for (const word of name) {
      if (words.has(word)) continue;
      all = false;
      if (!hasPrefixed(word, words)) {
        prefixed = false;
        break;
      }
    }
    if (all) return 1;
    if (prefixed) best = EVIDENCE.ownPrefix;
  }
  return best;
}

function hasPrefixed(word: string, words: Set<string>): boolean {
  if (word.length < 4) return false;
  for (const other of words) if (prefixes(word, other)) return true;
  return false;
}

function prefixes(a: string, b: string): boolean {
  return a.length >= 4 && b.length >= 4 && (a.startsWith(b) || b.startsWith(a));
}

/** "1,145 points", "(299 ratings)", "Free Shipping": the text's word after its number (or any word, `anyWord`) names the field. */
function unitNames(text: string, names: string[][], anyWord = false): boolean {
  if (!anyWord) return unitNumber(text, names) !== undefined;
  const textWords = cachedTokens(text).map(singular);
  return names.some((name) => name.every((part) => textWords.some((word) => word === part || prefixes(word, part))));
}

/** The number written before a word that names the field ("7,891,234 ratings" in "4.28 avg rating, 7,891,234 ratings"). */
function unitNumber(text: string, names: string[][]): number | undefined {
  if (!/\d/.test(text)) return undefined;
  for (const match of text.matchAll(UNIT)) {
    const word = singular(match[3]!.toLowerCase());
    if (names.some((name) => name.length === 1 && (word === name[0] || prefixes(word, name[0]!))))
      return readCount(`${match[1]}${match[2] ?? ""}`);
  }
  return undefined;
}

const UNIT = /(\d[\d.,\u00a0]*\d|\d)\s?([kKmM]\b)?\+?\s*(\p{L}+)/gu;
const DATE_LIKE = /\b(\d+\s+(second|minute|hour|day|week|month|year)s?\s+ago|yesterday|today|just now|just posted)\b/i;
const OUT_OF = /\d\s*(\/|\p{L}+(\s\p{L}+)?)\s*(5|10)\b/u;

function share(texts: (string | undefined)[], test: (text: string) => boolean): number {
  const present = texts.filter((text): text is string => text !== undefined && text !== "");
  return present.length === 0 ? 0 : present.filter(test).length / present.length;
}

/** Numbers that count up one by one from record to record: 1, 2, 3 (ranks). */
function isSequence(texts: (string | undefined)[]): boolean {
  const numbers = texts.map((text) => (text ? firstNumber(text) : undefined));
  let steps = 0;
  for (let i = 1; i < numbers.length; i += 1)
    if (numbers[i] !== undefined && numbers[i] === numbers[i - 1]! + 1) steps += 1;
  return numbers.length >= 2 && steps >= 0.8 * (numbers.length - 1);
}

/**
 * A place that may hold a description: prose (words, on average a few of
 * them and not an address), in most records, not the title's link or a
 * place holding it or inside it. The longest of them is weighed the most.
 */
function isProse(column: Column, mainLinks: Column | undefined, texts: (string | undefined)[]): boolean {
  if (column.depth === 0 || column.count < MOST * column.cells.length) return false;
  if (mainLinks && (mainLinks === column || isWithin(mainLinks, column) || isWithin(column, mainLinks))) return false;
  const present = texts.filter((text): text is string => text !== undefined && text !== "");
  if (present.length === 0 || averageLength(present) < MIN_TEXT_CHARS) return false;
  const words = present.reduce((sum, text) => sum + (text.match(/\p{L}{2,}/gu)?.length ?? 0), 0) / present.length;
  return words >= MIN_TEXT_WORDS && share(present, (text) => !ADDRESS.test(text)) >= MIN_FIT;
}

/** A record's own title or text differs from record to record; a label repeated on every one ("View recipe") is the layout's. */
function varies(texts: (string | undefined)[]): boolean {
  const present = texts.filter((text): text is string => text !== undefined && text !== "");
  return present.length < 3 || new Set(present).size * 2 > present.length;
}

function averageLength(texts: (string | undefined)[]): number {
  const present = texts.filter((t): t is string => t !== undefined);
  return present.length === 0 ? 0 : present.reduce((sum, text) => sum + text.length, 0) / present.length;
}

/** The inner place that holds most of a place's text (the paragraph of a caption that also holds the address line). */
function core(column: Column, columns: Columns, textsOf: (column: Column) => (string | undefined)[]): Column {
  let best = column;
  for (;;) {
    const outer = best;
    const length = averageLength(textsOf(outer));
    const inner = columns.columns.find(
      (other) =>
        other.parent === outer && other.count * 2 >= outer.count && averageLength(textsOf(other)) >= 0.7 * length,
    );
    if (!inner) return best;
    best = inner;
  }
}

/** The place of each record's main link (its title's link), where most records have it. */
function mainLinkColumn(records: Element[][], columns: Columns): Column | undefined {
  // The places of links, each with whether it is in a heading (its own or a place above it is one).
  const links = columns.columns
    .filter((column) => column.cells.some((cell) => cell?.tagName === "a"))
    .map((column) => ({ column, heading: inHeading(column) }));
  const counts = new Map<Column, number>();
  records.forEach((record, index) => {
    const recordText = record.reduce((sum, element) => sum + valueText(element).length, 0);
    let best: Column | undefined;
    let bestScore = 0;
    for (const { column, heading } of links) {
      const link = column.cells[index];
      if (link?.tagName !== "a" || !isNavigable(link.attribs.href)) continue;
      const text = valueText(link);
      const letters = text.replace(/[^\p{L}]/gu, "").length;
      // A link around the whole record (a card that is one link) only where there is no other.
      const whole = recordText > 0 && text.length > 0.8 * recordText && record.length === 1 && hasSeveralTexts(link);
      const score = letters === 0 ? 0 : Math.min(letters, 150) + (heading ? 100 : 0) - (whole ? 1000 : 0) + 2000;
      if (score > bestScore) [best, bestScore] = [column, score];
    }
    if (best) counts.set(best, (counts.get(best) ?? 0) + 1);
  });
  const [best, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
  return best && count * 2 >= records.length ? best : undefined;
}

/**
 * Whether a place's elements hold most of their records' text, of which the
 * record's first line is only a part, in most records: the record itself
 * (a card that is one link), not its title.
 */
function isWholeRecord(column: Column, firstTexts: Column | undefined, records: Element[][]): boolean {
  if (!firstTexts || !isWithin(firstTexts, column)) return false;
  let whole = 0;
  records.forEach((record, index) => {
    const [cell, first] = [column.cells[index], firstTexts.cells[index]];
    if (!cell || !first) return;
    const recordText = record.reduce((sum, element) => sum + valueText(element).length, 0);
    const text = valueText(cell).length;
    if (text > 0.8 * recordText && valueText(first).length < 0.8 * text) whole += 1;
  });
  return whole * 2 > records.length;
}

/**
 * The place of each record's first text with letters in reading order (its
 * first line), where most records have it at the same place: a title comes
 * first in a record, before what is said of it.
 */
function firstTextColumn(records: Element[][], columns: Columns): Column | undefined {
  const counts = new Map<Column, number>();
  for (const record of records) {
    const first = firstLettered(record);
    const column = first && columns.placeOf.get(first);
    if (column) counts.set(column, (counts.get(column) ?? 0) + 1);
  }
  const [best, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
  return best && count * 2 >= records.length ? best : undefined;
}

/** The first element in reading order whose own text has letters, among the shown elements of a record. */
function firstLettered(record: Element[]): Element | undefined {
  let read = 0;
  const visit = (element: Element): Element | undefined => {
    read += 1;
    if (read > MAX_LINK_SEARCH || NOT_TEXT.has(element.tagName) || valueText(element) === "") return undefined;
    for (const child of element.children) {
      if (isText(child) && /\p{L}/u.test(child.data)) return element;
      if (isTag(child)) {
        const found = visit(child);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const element of record) {
    const found = visit(element);
    if (found) return found;
  }
  return undefined;
}

/** Whether a place is a heading, inside one or around one (a link holding a heading), in the record where it first is. */
function inHeading(column: Column): boolean {
  for (let node: Column | undefined = column; node; node = node.parent) {
    const cell = node.cells.find((c) => c !== undefined);
    if (cell && HEADING.test(cell.tagName)) return true;
  }
  const cell = column.cells.find((c) => c !== undefined);
  return cell !== undefined && holdsHeading(cell);
}

const HEADING = /^h[1-6]$/;

/** Whether an element's only shown child (down a few levels) is a heading. */
function holdsHeading(element: Element): boolean {
  let node = element;
  for (let depth = 0; depth < 3; depth += 1) {
    const shown = node.children.filter((child): child is Element => isTag(child) && valueText(child) !== "");
    if (shown.length !== 1) return false;
    node = shown[0]!;
    if (HEADING.test(node.tagName)) return true;
  }
  return false;
}

function hasSeveralTexts(element: Element): boolean {
  return (
    element.children.filter(
      (child) => (isTag(child) && valueText(child) !== "") || (isText(child) && child.data.trim() !== ""),
    ).length >= 2
  );
}

function isNavigable(href: string | undefined): boolean {
  return href !== undefined && href.trim() !== "" && !/^(#|javascript:)/i.test(href.trim());
}

/** A list field's path: the elements its markup names, several in a record where they are. */
function listColumn(
  field: ItemField,
  columns: Columns,
  wordsOf: (column: Column) => ColumnWords,
): { column: Column; score: number; list: string } | undefined {
  let best: { column: Column; score: number; list: string } | undefined;
  for (const column of columns.columns) {
    if (!column.key.endsWith("#0") || column.count === 0) continue;
    const words = wordsOf(column);
    const evidence = Math.max(
      named(field.names, words.own),
      named(field.names, words.ancestors) * EVIDENCE.ancestor,
      named(field.names, words.label) * EVIDENCE.label,
      // Links whose addresses name the field ("/tag/change/" for tags).
      column.cells.some((cell) => cell?.tagName === "a") ? named(field.names, words.href) * EVIDENCE.href : 0,
    );
    if (evidence === 0) continue;
    const items = columns.lists.get(column.path) ?? [];
    const several = items.filter((list) => list && list.length >= 2).length;
    const score = evidence * (several > 0 ? 1 : 0.7) + column.depth * 0.001;
    if (!best || score > best.score) best = { column, score, list: column.path };
  }
  return best;
}

/** An old price (struck through, or named as before, was, list price): not the one to pay. */
function isOldPrice(column: Column, wordsOf: (column: Column) => ColumnWords): boolean {
  const { own, ancestors } = wordsOf(column);
  if ([...own, ...ancestors].some((word) => OLD_PRICE_WORDS.has(word))) return true;
  const cell = column.cells.find((c) => c !== undefined);
  for (let node: Element | null = cell ?? null; node && isTag(node); node = node.parent as Element | null) {
    if (node.tagName === "s" || node.tagName === "strike" || node.tagName === "del") return true;
  }
  return false;
}

/** The share of the column's present cells that read as the field's type. */
function fitOf(field: ItemField, column: Column, texts: (string | undefined)[], context: Context): number {
  let present = 0;
  let fitting = 0;
  column.cells.forEach((cell, index) => {
    if (!cell) return;
    const text = texts[index] ?? "";
    if (text === "" && field.kind !== "url" && !(field.kind === "rating" || field.kind === "number")) return;
    present += 1;
    if (readCell(field, cell, text, context) !== undefined) fitting += 1;
  });
  return present === 0 ? 0 : fitting / present;
}

/** A record's value for a field, or undefined where it has none. */
export function readField(
  field: ItemField,
  index: number,
  choice: { column: Column; list?: string; alternates?: Column[] } | undefined,
  context: Context,
  textsOf?: (column: Column) => (string | undefined)[],
): unknown {
  if (!choice) return undefined;
  if (field.kind === "list") {
    const elements = (choice.list ? context.columns.lists.get(choice.list)?.[index] : undefined) ?? [];
    const texts = elements.map(valueText).filter((text) => text !== "");
    return texts.length > 0 ? texts : undefined;
  }
  const column = [choice.column, ...(choice.alternates ?? [])].find((place) => place.cells[index] !== undefined);
  const cell = column?.cells[index];
  if (!column || !cell) return undefined;
  const text = textsOf ? (textsOf(column)[index] ?? "") : valueText(cell);
  const value = readCell(field, cell, text, context);
  // A date as the page writes it, where the column is one of dates: "Just posted" beside "Posted 3 days ago".
  if (
    value === undefined &&
    field.kind === "date" &&
    field.hints.format !== "iso8601" &&
    text.length > 0 &&
    text.length <= MAX_DATE_CHARS
  )
    return text;
  return value;
}

/** The element a record's value for a field is read from. */
export function cellOf(choice: Chosen, index: number): Element | undefined {
  return [choice.column, ...choice.alternates].find((place) => place.cells[index] !== undefined)?.cells[index];
}

/** No record has both places. */
function disjoint(a: Column, b: Column): boolean {
  return a.cells.every((cell, index) => cell === undefined || b.cells[index] === undefined);
}

/** Whether the page names the field at the place (its markup, an icon, a unit), rather than the place's role alone. */
function isNamed(
  field: ItemField,
  column: Column,
  wordsOf: (column: Column) => ColumnWords,
  textsOf: (column: Column) => (string | undefined)[],
): boolean {
  const words = wordsOf(column);
  if (
    named(field.names, words.own) > 0 ||
    named(field.names, words.ancestors) > 0 ||
    named(field.names, words.icon) > 0 ||
    named(field.names, words.label) > 0
  )
    return true;
  const texts = textsOf(column);
  // A unit names a count ("1,145 points"), a currency a price ("$59.99").
  if (field.kind === "count" || field.kind === "number")
    return share(texts, (text) => unitNames(text, field.names)) >= MIN_FIT;
  return field.kind === "price" && share(texts, (text) => currencyOf(text) !== undefined) >= MIN_FIT;
}

function readCell(field: ItemField, cell: Element, text: string, context: Context): unknown {
  switch (field.kind) {
    case "url": {
      const link = cell.tagName === "a" ? cell : (closestLink(cell) ?? firstLink(cell));
      return absoluteUrl(link?.attribs.href, context.baseUrl) ?? (/^https?:\/\/\S+$/.test(text) ? text : undefined);
    }
    case "price":
      return readPrice(text, field.hints);
    case "count":
      return unitNumber(text, field.names) ?? readCount(text);
    case "rank":
      return text ? firstNumber(text) : undefined;
    case "rating":
      return readRating(cell, text, field.hints);
    case "number":
      return text ? (parseNumber(text) ?? (text.length <= 30 ? firstNumber(text) : undefined)) : undefined;
    case "date": {
      const when = dateText(cell, text);
      return field.hints.format === "iso8601" ? (when ? isoDate(when) : undefined) : when;
    }
    case "boolean":
      return text ? parseBoolean(text) : undefined;
    case "title":
      return text && /\p{L}/u.test(text) && !/^(https?:\/\/|www\.)\S+$/i.test(text) ? text : undefined;
    case "text":
      // A description is words, not an address written out (a search result's green URL line).
      return text && /\p{L}/u.test(text) && !ADDRESS.test(text) ? text : undefined;
    case "string": {
      const value = firstPart(cell) ?? text;
      if (!value) return undefined;
      // "Company: Acme" where the column is the company's: the label goes.
      return pathName(withoutOwnLabel(value, field.hints).replace(BY_WORD, "")) || undefined;
    }
    default:
      return undefined;
  }
}

/** A link's text written as a path names its last part ("/c/gardening" → "gardening"). */
function pathName(text: string): string {
  const match = /^\/(?:[\p{L}\d_-]+\/)+([\p{L}\d_.-]+)\/?$/u.exec(text);
  return match ? match[1]! : text;
}

/**
 * The first of an element's parts when its text is made of several
 * elements and none of its own (a name followed by a job title): the
 * first part is what a short field asks for.
 */
function firstPart(cell: Element): string | undefined {
  let node = cell;
  for (let depth = 0; depth < 4; depth += 1) {
    if (node.children.some((child) => isText(child) && child.data.trim() !== ""))
      return depth === 0 ? undefined : valueText(node);
    const parts = node.children.filter((child): child is Element => isTag(child) && valueText(child) !== "");
    if (parts.length === 0) return undefined;
    // A name and what is said of it ("Jed Guinto", "• Aerospace Engineer"); parts that only follow on (a street, a city) are one value.
    if (parts.length >= 2)
      return parts.slice(1).some((part) => ASIDE.test(valueText(part))) ? valueText(parts[0]!) : undefined;
    node = parts[0]!;
  }
  return undefined;
}

/**
 * A count as written: "1,145 points", "(299 ratings)", "1.2k", "92.284" (a
 * whole number, so a lone separator before three digits groups them).
 */
export function readCount(text: string): number | undefined {
  const match = /\d[\d.,\s\u00a0]*\d|\d/.exec(text);
  if (!match) return undefined;
  const written = match[0].trim();
  const after = text.slice(match.index + match[0].length);
  const scale = /^\s?[kK]\b/.test(after) ? 1000 : /^\s?[mM]\b/.test(after) ? 1_000_000 : 1;
  if (/^\d{1,3}([.,\s\u00a0]\d{3})+$/.test(written)) return Number(written.replace(/[.,\s\u00a0]/g, "")) * scale;
  const number = parseNumber(written);
  if (number === undefined) return undefined;
  const count = Math.round(number * scale);
  // A count is a whole number: "4,7" is a rating, not a count.
  return scale === 1 && !Number.isInteger(number) ? undefined : count;
}

/** A rating from the element's text or its labelling attributes ("4,7 von 5 Sternen", aria-label, data-rating), on a scale up to 10. */
function readRating(cell: Element, text: string, hints: NameHints): number | undefined {
  const top = hints.scale?.[1] ?? 10;
  const { attribs } = cell;
  const data = Object.entries(attribs)
    .filter(([key]) => key.startsWith("data-") && /rat|star|score/.test(key))
    .map(([, value]) => value);
  for (const written of [text, attribs["aria-label"], attribs.title, ...data]) {
    if (!written) continue;
    const number = written.length <= 40 ? firstNumber(written) : undefined;
    if (number !== undefined && number >= 0 && number <= top) return number;
  }
  return undefined;
}

/** A date as the page writes it: a <time> element's text or datetime, or a text with a date or a year in it. */
function dateText(cell: Element, text: string): string | undefined {
  const time = cell.tagName === "time" ? cell : undefined;
  if (time?.attribs.datetime && !/\p{L}{3}/u.test(text)) return time.attribs.datetime;
  if (!text || text.length > 60) return undefined;
  return datesIn(text).length > 0 || /\b(1[89]|20)\d{2}\b/.test(text) || /\bago\b/i.test(text) ? text : undefined;
}

function closestLink(element: Element): Element | undefined {
  for (let node: Element | null = element; node && isTag(node); node = node.parent as Element | null) {
    if (node.tagName === "a" && node.attribs.href) return node;
  }
  return undefined;
}

function firstLink(element: Element): Element | undefined {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.tagName === "a" && isNavigable(child.attribs.href)) return child;
    const inner = firstLink(child);
    if (inner) return inner;
  }
  return undefined;
}

/** Whether a record is an ad: a short text that says so, or a class or id word that does ("adSlot", "sponsored-result"). */
export function isAd(record: Element[]): boolean {
  let read = 0;
  const visit = (element: Element, depth: number): boolean => {
    read += 1;
    if (read > MAX_LINK_SEARCH) return false;
    const named = `${element.attribs.class ?? ""} ${element.attribs.id ?? ""}`;
    if (AD_HINT.test(named)) for (const word of markupWords(element)) if (AD_MARKUP.has(word)) return true;
    const label = element.attribs["aria-label"];
    if (label && AD_TEXT.test(label.trim().split(/[.:]/)[0]!.trim())) return true;
    for (const child of element.children) {
      if (!isText(child) || child.data.length > 60) continue;
      const own = collapsed(child.data);
      if (own && own.length <= 30 && AD_TEXT.test(own)) return true;
    }
    return (
      depth < 40 &&
      element.children.some((child) => isTag(child) && !NOT_TEXT.has(child.tagName) && visit(child, depth + 1))
    );
  };
  return record.some((element) => visit(element, 0));
}

const ADDRESS = /^(https?:\/\/\S+|www\.\S+|[\w-]+(\.[\w-]+)+(\/\S*)?)$/i;

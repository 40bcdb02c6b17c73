/**
 * The deterministic engine: no model. Candidates come from what the page
 * says about itself (JSON-LD, microdata, RDFa, OpenGraph/Twitter/meta tags),
 * from what it labels for readers (table rows, definition lists,
 * "Label: value" lines) and from its headings. Field names are matched by
 * meaning (builtin/concepts.ts, builtin/match.ts); every value carries a
 * confidence, and values below MIN_CONFIDENCE are left null, so that a
 * wrong value is rarer than a missing one and the model can take the rest
 * in hybrid mode. The result still goes through shape.ts, which has the
 * last word on types.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import { decodeHTML } from "entities";
import { nameHints, type NameHints } from "../field-names.js";
import { currencyCode, durationIn, firstNumber, isoDate, parseBoolean, parseNumber, rescale } from "../normalize.js";
import type { Page } from "../page.js";
import { readBlocks } from "./builtin/blocks.js";
import { withoutByWord } from "./builtin/byline.js";
import { CONCEPTS, SHOWN_FIRST, SUPPORTING_TYPES, URL_VALUED } from "./builtin/concepts.js";
import { asEntity, asList, first, isPresent, ownValue, readGraph, typesOf, type Entity, type Graph } from "./builtin/graph.js";
import { labelsExactly, matchLabel, MIN_CONFIDENCE, singular, withoutOwnLabel, type Scored } from "./builtin/match.js";
import { readItems } from "./builtin/microdata.js";
import { readCards } from "./builtin/microformats.js";
import { readPageValues, squashed, type PageValues } from "./builtin/page-values.js";

export function extractBuiltin(tree: ObjectNode, page: Page): Record<string, unknown> {
  const graph = readGraph([...page.structured.jsonLd, ...readItems(page.$), ...readCards(page.$)]);
  const primary = primaryEntity(tree, graph);
  // The WebPage entity describes the same page, and often carries its dates and description.
  const webPage = graph.entities.find((e) => e !== primary && typesOf(e).includes("webpage"));
  const source: Source = {
    entities: [primary, webPage].filter((e) => e !== undefined),
    page: readPageValues(page, primary && !isSupporting(primary) ? typesOf(primary) : [], primary, graph),
    graph,
  };
  return fillObject(tree, source);
}

/** Listing pages can declare hundreds of entities; the one a page is about comes early. */
const MAX_CANDIDATES = 50;

/**
 * The entity the schema is about: of the content entities (an @graph often
 * holds an Article and a Recipe side by side), the one that has values for
 * the most top-level fields; the first one on a tie. Only when there is no
 * content entity does a supporting one (an Organization) stand in.
 */
function primaryEntity(tree: ObjectNode, graph: Graph): Entity | undefined {
  const content = graph.entities.filter((e) => !isSupporting(e));
  let best: Entity | undefined;
  let bestScore = -1;
  for (const entity of (content.length > 0 ? content : graph.entities).slice(0, MAX_CANDIDATES)) {
    const source = nested(entity, graph);
    const score = tree.fields.filter((field) => find(nameHints(field.name), source) !== undefined).length;
    if (score > bestScore) [best, bestScore] = [entity, score];
  }
  return best;
}

function isSupporting(entity: Entity): boolean {
  return typesOf(entity).some((t) => SUPPORTING_TYPES.has(t));
}

interface Source {
  entities: Entity[];
  /** Page-level values; only for the top level, not inside nested entities. */
  page: PageValues | undefined;
  graph: Graph;
}


function fillObject(node: ObjectNode, source: Source): Record<string, unknown> {
  return Object.fromEntries(node.fields.map((field) => [field.name, fill(field.node, nameHints(field.name), source)]));
}

function fill(node: SchemaNode, hints: NameHints, source: Source): unknown {
  const found = find(hints, source, node.kind === "scalar" && node.type === "string");
  const confident = found && found.confidence >= MIN_CONFIDENCE ? found.value : undefined;
  switch (node.kind) {
    case "scalar": {
      const value = confident === undefined ? undefined : inFieldUnits(scalar(node.type, peopleOnly(confident, hints, source), hints), hints, source);
      if (typeof value === "string" && isAuthor(hints)) return withoutByWord(value);
      // `brand_name` is the brand: the label and the value's own label are looked for under the concept's word.
      const shown = hints.subject.find((word) => SHOWN_FIRST.has(word));
      if (value !== undefined && shown) {
        const concept = { ...hints, subject: [shown] };
        return fromLabel(node, concept, source, true) ?? (typeof value === "string" ? withoutOwnLabel(value, concept) : value);
      }
      return value ?? fromLabel(node, hints, source) ?? null;
    }
    case "object": {
      // A field with no source of its own groups fields of the same entity: {"product": {"name", "price"}}.
      if (found === undefined) return fillObject(node, source);
      const entity = confident === undefined ? undefined : asEntity(first(confident), source.graph);
      return entity ? fillObject(node, nested(entity, source.graph)) : null;
    }
    case "array":
      return fillArray(node.items, hints, confident, source) ?? fromLabel(node, hints, source) ?? null;
    case "any-array":
      return confident === undefined ? null : asList(confident);
    case "any-object":
      return (confident !== undefined && asEntity(first(confident), source.graph)) || null;
  }
}

/**
 * Doubts about a page-level text that no single source can settle: an
 * excerpt cut short ("…") is not the whole description, "No Author" is no
 * author, the site's own name as the author gives way to a person the
 * byline names, a brand that reads as a page title is no brand, a brand
 * that is the shop's own name may be the platform's default (a store's name
 * as every product's vendor) unless a label shows it, and a page whose meta
 * and OpenGraph descriptions differ describes itself in more than one way.
 */
function plausibility(value: unknown, hints: NameHints, page: PageValues): number {
  const text = texts(value, hints).join(" ");
  if (/(\.\.\.|…|\[…\]|\[\.\.\.\])$/.test(text)) return 0.5;
  if (hints.subject.some((word) => ["description", "summary"].includes(word))) return page.descriptionsDisagree ? 0.6 : 1;
  if (isMaker(hints)) return isTitle(text, page) || page.siteNames.includes(squashed(text)) ? 0.5 : 1;
  if (!isAuthor(hints)) return 1;
  if (/^(no author|unknown|admin|anonymous)$/i.test(text.trim())) return 0;
  const byline = page.byline().author?.value;
  return byline && page.siteNames.includes(squashed(text)) && !page.siteNames.includes(squashed(byline)) ? 0.6 : 1;
}

function isMaker(hints: NameHints): boolean {
  return hints.subject.some((word) => ["brand", "manufacturer", "maker"].includes(word));
}

/** A page title rather than a name: the site's name set off by a separator ("Theatre Show | Deals Site"). */
function isTitle(text: string, page: PageValues): boolean {
  return text.split(/\s[|–—·]\s/).slice(1).some((part) => page.siteNames.some((site) => squashed(part).startsWith(site)));
}

function isAuthor(hints: NameHints): boolean {
  return hints.subject.some((word) => ["author", "byline", "writer", "creator"].includes(word));
}

/** An author list without the site itself, which pages add beside the people ("Kim Lee, Site Example"). */
function peopleOnly(found: unknown, hints: NameHints, source: Source): unknown {
  if (!isAuthor(hints) || !Array.isArray(found) || !source.page) return found;
  const { siteNames } = source.page;
  const people = found.filter((item) => !texts(item, hints).some((text) => siteNames.includes(squashed(text))));
  return people.length > 0 ? people : found;
}

/**
 * A number in the units the field's name states: a price in another
 * currency than `price_usd` names is no answer (converting would need a
 * rate), and a rating on another scale moves to the named one.
 */
function inFieldUnits(value: unknown, hints: NameHints, source: Source): unknown {
  const number = typeof value === "number" ? value : typeof value === "string" ? parseNumber(value) : undefined;
  if (number === undefined) return value;
  if (hints.currency) {
    const stated = textAt("offers.priceCurrency", source) ?? textAt("priceCurrency", source) ?? source.page?.offer().shownCurrency;
    if (stated && (currencyCode(stated) ?? stated.trim().toUpperCase()) !== hints.currency) return undefined;
  }
  const best = hints.scale ? Number(textAt("aggregateRating.bestRating", source) ?? textAt("reviewRating.bestRating", source)) : NaN;
  return hints.scale && Number.isFinite(best) && best > 0 ? rescale(number, best, hints.scale) : number;
}

function textAt(path: string, source: Source): string | undefined {
  const value = first(lookup(path, source)?.value);
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

function scalar(type: string, found: unknown, hints: NameHints): unknown {
  if (type === "string") return texts(found, hints).join("\n") || undefined;
  if (type === "boolean") return typeof first(found) === "string" ? parseBoolean(first(found) as string) : first(found);
  return toQuantity(first(found), hints);
}

function fillArray(items: SchemaNode, hints: NameHints, found: unknown, source: Source): unknown[] | undefined {
  const { graph } = source;
  if (items.kind === "object") {
    // A list of things with no property of its own may be the page's entities of that type: "products" → Product.
    const list = found !== undefined ? asList(found) : graph.entities.filter((e) => typesOf(e).includes(singular(hints.subject.join(""))));
    const entities = list.map((item) => asEntity(item, graph)).filter((e) => e !== undefined);
    if (entities.length > 0) return entities.map((entity) => fillObject(items, nested(entity, graph)));
    // Else the page's repeated blocks may hold them; what the data states for an item's field (a flat ingredient list) helps find them.
    const known = (name: string) => {
      const stated = find(nameHints(name), source);
      return stated && stated.confidence >= MIN_CONFIDENCE ? listTexts(stated.value, nameHints(name)) : [];
    };
    return source.page && readBlocks(source.page.document, items, hints, known);
  }
  if (found === undefined) return undefined;
  if (items.kind === "scalar" && items.type === "string") return listTexts(found, hints);
  return asList(found).map((item) => (items.kind === "scalar" ? toQuantity(item, hints) : item));
}

/** Texts for a list of strings; one text written line by line (steps in one string) is a list of its lines. */
function listTexts(found: unknown, hints: NameHints): string[] {
  const list = asList(found);
  const only = list.length === 1 && typeof list[0] === "string" ? list[0].trim() : undefined;
  return only?.includes("\n") ? only.split(/\s*\n\s*/).flatMap((line) => texts(line, hints)) : texts(found, hints);
}

/**
 * A value the page labels for the field ("ISBN-13: 978-..."), read into the
 * field's type; undefined when no label matches confidently or its value
 * does not read as the type (a date field's label followed by no date).
 * `exactly`: only a label that says the field's name or a synonym as written.
 */
function fromLabel(node: SchemaNode, hints: NameHints, source: Source, exactly = false): unknown {
  if (!source.page) return undefined;
  const match = matchLabel(hints, source.page.labels);
  if (!match || match.confidence < MIN_CONFIDENCE || (exactly && !labelsExactly(hints, match.value.label))) return undefined;
  const { value, items } = match.value;
  if (node.kind === "array") {
    if (node.items.kind !== "scalar" || node.items.type !== "string") return undefined;
    return items.length > 0 ? items : value.split(/\s*[|;•]\s*|\s*,\s+/).filter((item) => item.length > 0);
  }
  if (node.kind !== "scalar") return undefined;
  switch (node.type) {
    case "string":
      return hints.format === "iso8601" ? isoDate(value) : value;
    case "boolean":
      return parseBoolean(value);
    default: {
      const stated = currencyCode(value);
      if (hints.currency && stated && stated !== hints.currency) return undefined;
      // "$9,970", "205 lbs." (a short value with a number and a unit), "1 hr 30 mins".
      return parseNumber(value) ?? (hints.durationUnit ? durationIn(value, hints.durationUnit) : undefined) ?? (value.length <= 30 ? firstNumber(value) : undefined);
    }
  }
}

function nested(entity: Entity, graph: Graph): Source {
  return { entities: [entity], page: undefined, graph };
}

/** How sure a match is by where it was found: the page's main entity, a property of the field's own name, a meta tag. */
const CONFIDENCE = { concept: 0.9, sameName: 0.85, meta: 0.8 };

/** Words that name a form of a value rather than another thing: `brand_name` is the brand, `published_at` the publication. */
const ATTRIBUTE_WORDS = new Set(["name", "names", "text", "value", "title", "label", "url", "urls", "link", "links", "list", "date", "time", "at", "full", "average", "avg", "overall"]);

/** Bounds on the phrases tried per field, so the work stays small whatever the name's length. */
const MAX_TOKENS = 12;
const MAX_PHRASE_TOKENS = 3;

/**
 * The first present value for the field, trying its concepts and then
 * same-named properties, longest phrase first. A match on part of the name
 * loses confidence for each word it leaves out, unless that word names the
 * page's main entity or a form of the value: `recipe_title` is the recipe's
 * title and `author_name` the author, but `author_name` found as a bare
 * `name` is most likely the name of something else.
 */
function find(hints: NameHints, source: Source, wantsText = false): Scored<unknown> | undefined {
  const subject = hints.subject.slice(0, MAX_TOKENS);
  // The first confident match wins; a doubtful one (the name of a stand-in Organization) lets later sources speak.
  let doubtful: Scored<unknown> | undefined;
  for (const phrase of phrases(subject)) {
    const words = phrase.split(" ");
    const leftOut = subject.filter((word) => !words.includes(word) && !ATTRIBUTE_WORDS.has(word) && !source.page?.aboutWords.some((type) => type.includes(word))).length;
    const camel = phrase.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());
    const concepts = CONCEPTS.get(phrase) ?? [];
    for (const path of [...concepts, camel, singular(camel)]) {
      const found = lookup(path, source);
      // A link where a text field wants a name (an author given as a profile URL) is no value: later sources may have one.
      if (found === undefined || (wantsText && typeof found.value === "string" && texts(found.value, hints).length === 0)) continue;
      const base = path.startsWith("page:") ? 1 : path.startsWith("meta:") ? CONFIDENCE.meta : concepts.includes(path) ? CONFIDENCE.concept : CONFIDENCE.sameName;
      const doubt = source.page ? plausibility(found.value, hints, source.page) : 1;
      const scored = { value: found.value, confidence: base * found.confidence * doubt * 0.5 ** leftOut };
      if (scored.confidence >= MIN_CONFIDENCE || found.settled) return scored;
      if (scored.confidence > (doubtful?.confidence ?? 0)) doubtful = scored;
    }
  }
  return doubtful;
}

/** Contiguous token runs, longest first and left to right: "author name" before "author" before "name". */
function phrases(subject: string[]): string[] {
  const result: string[] = [];
  for (let size = Math.min(subject.length, MAX_PHRASE_TOKENS); size > 0; size -= 1) {
    for (let start = 0; start + size <= subject.length; start += 1) result.push(subject.slice(start, start + size).join(" "));
  }
  return result;
}

function lookup(path: string, source: Source): Scored<unknown> | undefined {
  if (path.startsWith("meta:")) {
    const value = source.page?.data.meta.get(path.slice(5));
    return value ? { value, confidence: 1 } : undefined;
  }
  if (path === "page:headline") return source.page?.headline;
  if (path === "page:date") return source.page?.byline().date;
  if (path === "page:author") return source.page?.byline().author;
  // The offer has weighed every offer and the buy box: what it leaves open, no single one of them answers.
  if (path === "page:price") return source.page && settled(source.page.offer().price);
  if (path === "page:availability") return source.page && settled(source.page.offer().inStock);
  // An id read from the address alone is a fair guess, no more: any id the page states comes first.
  if (path === "page:address id") {
    const id = source.page?.addressId();
    return id === undefined ? undefined : { value: id, confidence: 0.65 };
  }
  if (path === "page:currency") {
    const shown = source.page?.offer().shownCurrency;
    return shown ? { value: shown, confidence: 0.7 } : undefined;
  }
  for (const entity of source.entities) {
    let value: unknown = entity;
    for (const key of path.split(".")) {
      const current = asEntity(first(value), source.graph);
      value = current ? ownValue(current, key) : undefined;
    }
    if (!isPresent(value)) continue;
    // A stand-in main entity (an Organization, when the page declares nothing else) is not what the page is about,
    // and the name of a WebPage is usually its <title>, site name and all.
    const standIn = source.page && isSupporting(entity) && entity !== source.page.subject && (entity === source.entities[0] || path === "name");
    const confidence = standIn ? 0.6 : 1;
    return { value: Array.isArray(value) ? value.map((item) => asEntity(item, source.graph) ?? item) : (asEntity(value, source.graph) ?? value), confidence };
  }
  return undefined;
}

function settled<T>(found: Scored<T> | undefined): Scored<T | undefined> {
  return { value: found?.value, confidence: found?.confidence ?? 0, settled: true };
}

/**
 * The text values in a structured value, flattened: step lists (HowToSection
 * → HowToStep), people and things by name, images by URL when the field
 * wants one. HTML entities and tags left in the data ("&amp;", "<b>") are
 * decoded and dropped.
 */
function texts(value: unknown, hints: NameHints): string[] {
  if (typeof value === "string") {
    // Some sites put markup in their structured data ("<a href=…>1/2 cup beans</a>"): its text is the value.
    const text = decodeHTML(value.replace(INLINE_TAG, "").replace(ANY_TAG, " ")).replace(/\s+/g, " ").trim();
    // A link where a name or text is wanted (an author given as a profile URL) is not the value.
    return text && (wantsUrl(hints) || !/^https?:\/\/\S+$/.test(text)) ? [text] : [];
  }
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return value.flatMap((item) => texts(item, hints));
  if (typeof value !== "object" || value === null) return [];
  const entity = value as Entity;
  const list = ownValue(entity, "itemListElement");
  if (list !== undefined) return texts(list, hints);
  // A thing's URL is not its name: without a name or text, a person given only as a link has no text.
  const keys = wantsUrl(hints) ? ["url", "contentUrl", "@id"] : ["text", "name", "@value"];
  for (const key of keys) {
    const text = ownValue(entity, key);
    if (typeof text === "string" && text.trim()) return texts(text, hints);
  }
  return [];
}

const INLINE_TAG = /<\/?(a|b|i|em|strong|span|small|sup|sub|u)\b[^<>]*>/gi;
const ANY_TAG = /<\/?[a-z][^<>]*>/gi;

function wantsUrl(hints: NameHints): boolean {
  return hints.format === "url" || hints.subject.some((t) => URL_VALUED.has(t));
}

/** A number for a numeric field; durations become the unit the name states (PT1H30M → 90 for `_minutes`). */
function toQuantity(value: unknown, hints: NameHints): unknown {
  if (typeof value === "object" && value !== null) return texts(value, hints)[0];
  if (typeof value !== "string") return value;
  // Without a unit in the name, converting would be a guess; shape.ts then refuses the text.
  return (hints.durationUnit ? durationIn(value, hints.durationUnit) : undefined) ?? value;
}

/**
 * The deterministic engine: no model, fields filled from what the page says
 * about itself in structured data (JSON-LD, OpenGraph/Twitter/meta tags, the
 * <title> and first <h1>). Field names are matched by meaning: split into
 * tokens, looked up in a small table of concepts, else tried as the JSON-LD
 * property of the same name (`prep_time` reads `prepTime`). Unmatched fields
 * stay null. The result still goes through shape.ts, which has the last word
 * on types.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import { nameHints, type NameHints } from "../field-names.js";
import type { StructuredData } from "../page.js";

type Entity = Record<string, unknown>;

/**
 * Where to look for a concept (a Map: a phrase such as "constructor" must
 * not find Object.prototype), best first: JSON-LD property paths (arrays on
 * the way take their first item), `meta:<name>` for meta tags, `page:title`
 * and `page:h1`.
 */
const TITLE = ["headline", "name", "meta:og:title", "meta:twitter:title", "page:h1", "page:title"];
const DESCRIPTION = ["description", "meta:description", "meta:og:description", "meta:twitter:description"];
const IMAGE = ["image", "thumbnailUrl", "meta:og:image", "meta:twitter:image"];
const PUBLISHED = ["datePublished", "dateCreated", "uploadDate", "meta:article:published_time"];
const AUTHOR = ["author", "creator", "meta:author", "meta:article:author"];
const INSTRUCTIONS = ["recipeInstructions", "step"];
const REVIEW_COUNT = ["aggregateRating.reviewCount", "aggregateRating.ratingCount"];
const AVAILABILITY = ["offers.availability"];

const CONCEPTS = new Map<string, string[]>(Object.entries({
  title: TITLE,
  headline: TITLE,
  name: ["name", "headline", "meta:og:title", "page:h1", "page:title"],
  description: DESCRIPTION,
  summary: DESCRIPTION,
  image: IMAGE,
  photo: IMAGE,
  picture: IMAGE,
  thumbnail: ["thumbnailUrl", ...IMAGE],
  author: AUTHOR,
  byline: AUTHOR,
  creator: AUTHOR,
  date: [...PUBLISHED, "startDate"],
  published: PUBLISHED,
  modified: ["dateModified", "meta:article:modified_time"],
  updated: ["dateModified", "meta:article:modified_time"],
  price: ["offers.price", "offers.lowPrice", "price", "meta:product:price:amount", "meta:og:price:amount"],
  currency: ["offers.priceCurrency", "priceCurrency", "meta:product:price:currency", "meta:og:price:currency"],
  rating: ["aggregateRating.ratingValue", "reviewRating.ratingValue"],
  "review count": REVIEW_COUNT,
  "rating count": REVIEW_COUNT,
  availability: AVAILABILITY,
  "in stock": AVAILABILITY,
  available: AVAILABILITY,
  brand: ["brand", "manufacturer"],
  ingredients: ["recipeIngredient", "ingredients"],
  instructions: INSTRUCTIONS,
  steps: INSTRUCTIONS,
  directions: INSTRUCTIONS,
  servings: ["recipeYield"],
  yield: ["recipeYield"],
  cuisine: ["recipeCuisine"],
  category: ["recipeCategory", "category", "articleSection"],
  keywords: ["keywords", "meta:keywords"],
  tags: ["keywords", "meta:keywords"],
  calories: ["nutrition.calories"],
  publisher: ["publisher", "meta:og:site_name"],
  site: ["publisher", "meta:og:site_name"],
  url: ["url", "meta:og:url"],
  link: ["url", "meta:og:url"],
  body: ["reviewBody", "articleBody", "text"],
  text: ["text", "reviewBody", "articleBody"],
}));

/** Subjects whose text value is a URL: an image's name or caption is not the image. */
const URL_VALUED = new Set(["image", "photo", "picture", "thumbnail", "logo"]);

/** Types that describe the site or the page around the content rather than the content itself. */
const SUPPORTING_TYPES = new Set([
  "website", "webpage", "organization", "breadcrumblist", "imageobject", "person", "sitenavigationelement",
  "searchaction", "readaction", "wpheader", "wpfooter", "wpsidebar", "listitem",
]);

export function extractBuiltin(tree: ObjectNode, data: StructuredData): Record<string, unknown> {
  const graph = readGraph(data.jsonLd);
  const primary = primaryEntity(tree, graph);
  // The WebPage entity describes the same page, and often carries its dates and description.
  const webPage = graph.entities.find((e) => e !== primary && typesOf(e).includes("webpage"));
  const source: Source = { entities: [primary, webPage].filter((e) => e !== undefined), page: data, graph };
  return fillObject(tree, source);
}

const MAX_CANDIDATES = 50;

/**
 * The entity the schema is about: of the content entities (an @graph often
 * holds an Article and a Recipe side by side), the one that has values for
 * the most top-level fields; the first one on a tie.
 */
function primaryEntity(tree: ObjectNode, graph: Graph): Entity | undefined {
  const content = graph.entities.filter((e) => !typesOf(e).some((t) => SUPPORTING_TYPES.has(t)));
  let best: Entity | undefined;
  let bestScore = -1;
  // Listing pages can declare hundreds of entities; the one a page is about comes early.
  for (const entity of (content.length > 0 ? content : graph.entities).slice(0, MAX_CANDIDATES)) {
    const source = nested(entity, graph);
    const score = tree.fields.filter((field) => find(nameHints(field.name), source) !== undefined).length;
    if (score > bestScore) [best, bestScore] = [entity, score];
  }
  return best;
}

interface Source {
  entities: Entity[];
  /** Page-level values (meta tags, title); only for the top level, not inside nested entities. */
  page: StructuredData | undefined;
  graph: Graph;
}

function fillObject(node: ObjectNode, source: Source): Record<string, unknown> {
  return Object.fromEntries(node.fields.map((field) => [field.name, fill(field.node, nameHints(field.name), source)]));
}

function fill(node: SchemaNode, hints: NameHints, source: Source): unknown {
  const found = find(hints, source);
  switch (node.kind) {
    case "scalar":
      if (found === undefined) return null;
      if (node.type === "string") return texts(found, hints).join("\n") || null;
      if (node.type === "boolean") return availabilityFlag(first(found)) ?? first(found);
      return toQuantity(first(found), hints);
    case "object": {
      // A field with no source of its own groups fields of the same entity: {"product": {"name", "price"}}.
      if (found === undefined) return fillObject(node, source);
      const entity = asEntity(first(found), source.graph);
      return entity ? fillObject(node, nested(entity, source.graph)) : null;
    }
    case "array":
      return fillArray(node.items, hints, found, source.graph);
    case "any-array":
      return found === undefined ? null : Array.isArray(found) ? found : [found];
    case "any-object":
      return asEntity(first(found), source.graph) ?? null;
  }
}

function fillArray(items: SchemaNode, hints: NameHints, found: unknown, graph: Graph): unknown {
  if (items.kind === "object") {
    // A list of things with no property of its own may be the page's entities of that type: "products" → Product.
    const list = found !== undefined ? asList(found) : graph.entities.filter((e) => typesOf(e).includes(singular(hints.subject.join(""))));
    const entities = list.map((item) => asEntity(item, graph)).filter((e) => e !== undefined);
    return entities.length > 0 ? entities.map((entity) => fillObject(items, nested(entity, graph))) : null;
  }
  if (found === undefined) return null;
  if (items.kind === "scalar" && items.type === "string") return texts(found, hints);
  return asList(found).map((item) => (items.kind === "scalar" ? toQuantity(item, hints) : item));
}

function nested(entity: Entity, graph: Graph): Source {
  return { entities: [entity], page: undefined, graph };
}

/** The first present value for the field, trying its concepts and then same-named JSON-LD properties. */
function find(hints: NameHints, source: Source): unknown {
  for (const phrase of phrases(hints.subject)) {
    const camel = phrase.replace(/ (\w)/g, (_, c: string) => c.toUpperCase());
    for (const path of [...(CONCEPTS.get(phrase) ?? []), camel, singular(camel)]) {
      const value = lookup(path, source);
      if (isPresent(value)) return value;
    }
  }
  return undefined;
}

/** Bounds on the phrases tried per field, so the work stays small whatever the name's length. */
const MAX_TOKENS = 12;
const MAX_PHRASE_TOKENS = 3;

/** Contiguous token runs, longest first and left to right: "author name" before "author" before "name". */
function phrases(subject: string[]): string[] {
  const tokens = subject.slice(0, MAX_TOKENS);
  const result: string[] = [];
  for (let size = Math.min(tokens.length, MAX_PHRASE_TOKENS); size > 0; size -= 1) {
    for (let start = 0; start + size <= tokens.length; start += 1) result.push(tokens.slice(start, start + size).join(" "));
  }
  return result;
}

function lookup(path: string, source: Source): unknown {
  if (path.startsWith("meta:")) return source.page?.meta.get(path.slice(5));
  if (path === "page:title") return source.page?.title;
  if (path === "page:h1") return source.page?.h1;
  for (const entity of source.entities) {
    let value: unknown = entity;
    for (const key of path.split(".")) {
      const current = asEntity(first(value), source.graph);
      value = current ? ownValue(current, key) : undefined;
    }
    if (isPresent(value)) return Array.isArray(value) ? value.map((item) => asEntity(item, source.graph) ?? item) : (asEntity(value, source.graph) ?? value);
  }
  return undefined;
}

/** A property by name, ignoring case (JSON-LD in the wild is not consistent), own properties only. */
function ownValue(entity: Entity, key: string): unknown {
  if (Object.hasOwn(entity, key)) return entity[key];
  const lower = key.toLowerCase();
  const match = Object.keys(entity).find((k) => k.toLowerCase() === lower);
  return match === undefined ? undefined : entity[match];
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0);
}

/**
 * The text values in a JSON-LD value, flattened: step lists (HowToSection →
 * HowToStep), people and things by name, images by URL when the field wants one.
 */
function texts(value: unknown, hints: NameHints): string[] {
  if (typeof value === "string") return value.trim() ? [value.trim()] : [];
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return value.flatMap((item) => texts(item, hints));
  if (typeof value !== "object" || value === null) return [];
  const entity = value as Entity;
  const list = ownValue(entity, "itemListElement");
  if (list !== undefined) return texts(list, hints);
  const wantsUrl = hints.format === "url" || hints.subject.some((t) => URL_VALUED.has(t));
  const keys = wantsUrl ? ["url", "contentUrl", "@id"] : ["text", "name", "@value", "url", "contentUrl"];
  for (const key of keys) {
    const text = ownValue(entity, key);
    if (typeof text === "string" && text.trim()) return [text.trim()];
  }
  return [];
}

/** A number for a numeric field; ISO 8601 durations become the unit the name states (PT1H30M → 90 for `_minutes`). */
function toQuantity(value: unknown, hints: NameHints): unknown {
  if (typeof value === "object" && value !== null) return texts(value, hints)[0];
  if (typeof value !== "string") return value;
  // Without a unit in the name, converting would be a guess; shape.ts then refuses the text.
  const seconds = hints.durationUnit ? durationSeconds(value) : undefined;
  if (seconds === undefined || !hints.durationUnit) return value;
  return seconds / { seconds: 1, minutes: 60, hours: 3600, days: 86400 }[hints.durationUnit];
}

const DURATION = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

function durationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match || !match.slice(1).some((part) => part !== undefined)) return undefined;
  const [days = 0, hours = 0, minutes = 0, seconds = 0] = match.slice(1).map((part) => Number(part ?? 0));
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

/** schema.org ItemAvailability values as a yes/no answer to "is it available?". */
function availabilityFlag(value: unknown): boolean | undefined {
  if (typeof value !== "string") return undefined;
  const term = value.replace(/^https?:\/\/schema\.org\//i, "").toLowerCase();
  if (["instock", "instoreonly", "onlineonly", "limitedavailability", "presale", "preorder"].includes(term)) return true;
  if (["outofstock", "soldout", "discontinued"].includes(term)) return false;
  return undefined;
}

interface Graph {
  /** Top-level entities, @graph members included, in page order. */
  entities: Entity[];
  /** Entities by @id, so references such as {"@id": "#author"} resolve. */
  byId: Map<string, Entity>;
}

function readGraph(blocks: unknown[]): Graph {
  const entities: Entity[] = [];
  const byId = new Map<string, Entity>();
  const index = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(index);
    if (typeof value !== "object" || value === null) return;
    const entity = value as Entity;
    const id = entity["@id"];
    if (typeof id === "string" && Object.keys(entity).length > 1 && !byId.has(id)) byId.set(id, entity);
    Object.values(entity).forEach(index);
  };
  for (const block of blocks.flatMap((b) => asList(b))) {
    if (typeof block !== "object" || block === null) continue;
    const graph = (block as Entity)["@graph"];
    const members = graph !== undefined ? asList(graph) : [block];
    for (const member of members) if (typeof member === "object" && member !== null && !Array.isArray(member)) entities.push(member as Entity);
    index(block);
  }
  return { entities, byId };
}

/** A value as an entity, following an {"@id": ...} reference to the full entity. */
function asEntity(value: unknown, graph: Graph): Entity | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entity = value as Entity;
  const id = entity["@id"];
  return Object.keys(entity).length === 1 && typeof id === "string" ? (graph.byId.get(id) ?? entity) : entity;
}

function typesOf(entity: Entity): string[] {
  return asList(entity["@type"]).filter((t): t is string => typeof t === "string").map((t) => t.toLowerCase());
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function singular(word: string): string {
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}

/**
 * Scoring and choice: a field's candidates, tried from its concepts and
 * same-named properties, weighed by where they were found, how much of the
 * field's name they answer and how plausible their text is; the first
 * confident one is the field's value.
 */
import type { ObjectNode } from "@winnow/platform";
import { squashed } from "../../page/elements.js";
import type { NameHints } from "../../schema/field-names.js";
import { isElsewhere } from "./byline.js";
import { type Candidate, candidateAt, nested, type Source } from "./candidates.js";
import { CONCEPTS, entity, type Place } from "./concepts.js";
import { texts } from "./flatten.js";
import { type Entity, type Graph, isSupporting, itemElement } from "./graph.js";
import { MIN_CONFIDENCE, type Scored, singular } from "./match.js";
import { baseForm, fieldHints } from "./name-concepts.js";
import type { PageValues } from "./page-values.js";
import { calendarDayInDoubt } from "./utc-date.js";

/**
 * How sure a match is by where it was found: the page's main entity, a property of the field's own name, a meta tag.
 */
const CONFIDENCE = { concept: 0.9, sameName: 0.85, meta: 0.8 };

/**
 * Words that name a form of a value rather than another thing: `brand_name` is the brand, `published_at` the
 * publication.
 */
const ATTRIBUTE_WORDS = new Set([
  "name",
  "names",
  "text",
  "value",
  "title",
  "label",
  "url",
  "urls",
  "link",
  "links",
  "list",
  "date",
  "time",
  "at",
  "full",
  "average",
  "avg",
  "overall",
]);

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
export function find(hints: NameHints, source: Source, wantsText = false): Scored<unknown> | undefined {
  // The first confident match wins; a doubtful one (the name of a stand-in Organization) lets later sources speak.
  let doubtful: Scored<unknown> | undefined;
  for (const scored of scoredCandidates(hints, source, wantsText)) {
    const { value, confidence, origin } = scored;
    if (confidence >= MIN_CONFIDENCE || scored.settled) return { value, confidence, origin };
    if (confidence > (doubtful?.confidence ?? 0)) doubtful = { value, confidence, origin };
  }
  return doubtful;
}

/** One phrase of a field's name as scoring tries it: its words and the places it names, read once per name. */
interface PhrasePlan {
  words: string[];
  /** The places tried for every source, concepts first; `concepts` of them are the phrase's concepts. */
  places: Place[];
  concepts: number;
}

/** Each name's phrases, planned once: a page's fields are scored for every entity it declares. */
const plans = new WeakMap<NameHints, PhrasePlan[]>();

function phrasePlans(hints: NameHints): PhrasePlan[] {
  let planned = plans.get(hints);
  if (!planned) {
    planned = phrases(hints.subject.slice(0, MAX_TOKENS)).map((phrase): PhrasePlan => {
      const words = phrase.split(" ");
      const camel = camelCase(words);
      const concepts = CONCEPTS.get(phrase) ?? [];
      // Properties are named in base forms: `cooking_time` is a recipe's cookTime.
      const base = camelCase(words.map(baseForm));
      const places = [...concepts, entity(camel), entity(singular(camel)), ...(base === camel ? [] : [entity(base)])];
      return { words, places, concepts: concepts.length };
    });
    plans.set(hints, planned);
  }
  return planned;
}

/** The field's candidates in the order they are tried, each with its confidence as the field's value; read lazily. */
function* scoredCandidates(hints: NameHints, source: Source, wantsText: boolean): Generator<Candidate> {
  const subject = hints.subject.slice(0, MAX_TOKENS);
  for (const { words, places: named, concepts } of phrasePlans(hints)) {
    const leftOut = subject.filter(
      (word) =>
        !words.includes(word) &&
        !ATTRIBUTE_WORDS.has(word) &&
        !source.page?.aboutWords.some((type) => type.includes(word)),
    ).length;
    const abbreviated = abbreviatedKey(words, source);
    const places = abbreviated ? [...named, entity(abbreviated)] : named;
    for (const [index, place] of places.entries()) {
      const found = candidateAt(place, source);
      // A link where a text field wants a name (an author given as a profile URL) is no value: later sources may have
      // one.
      if (
        found === undefined ||
        (wantsText && typeof found.value === "string" && texts(found.value, hints).length === 0)
      )
        continue;
      const base =
        found.kind === "page"
          ? 1
          : found.kind === "meta"
            ? CONFIDENCE.meta
            : index < concepts
              ? CONFIDENCE.concept
              : CONFIDENCE.sameName;
      const doubt = source.page ? plausibility(found, hints, source.page) : 1;
      yield { ...found, confidence: base * found.confidence * doubt * 0.5 ** leftOut };
    }
  }
}

/** How short a property's word may be and still abbreviate a name's word ("prep" for "preparation"). */
const MIN_ABBREVIATION = 4;

/** An entity's property names split into lower-case words ("prepTime" → prep, time), read once per entity. */
const keyWords = new WeakMap<Entity, { key: string; parts: string[] }[]>();

function wordsOfKeys(entity: Entity): { key: string; parts: string[] }[] {
  let split = keyWords.get(entity);
  if (!split) {
    split = Object.keys(entity).map((key) => ({
      key,
      parts: key.split(/(?=[A-Z])/).map((part) => part.toLowerCase()),
    }));
    keyWords.set(entity, split);
  }
  return split;
}

/**
 * A property of the level's entities that names the phrase in shortened words (`preparation_time` is a recipe's
 * prepTime): the same number of words, each the name's word or its start.
 */
function abbreviatedKey(words: string[], source: Source): string | undefined {
  for (const entity of source.entities)
    for (const { key, parts } of wordsOfKeys(entity)) {
      if (
        parts.length === words.length &&
        parts.some((part, i) => part !== words[i]) &&
        parts.every((part, i) => part === words[i] || (part.length >= MIN_ABBREVIATION && words[i]!.startsWith(part)))
      )
        return key;
    }
  return undefined;
}

/** ["cook", "time"] → "cookTime". */
function camelCase(words: string[]): string {
  return words.map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1))).join("");
}

/** Contiguous token runs, longest first and left to right: "author name" before "author" before "name". */
function phrases(subject: string[]): string[] {
  const result: string[] = [];
  for (let size = Math.min(subject.length, MAX_PHRASE_TOKENS); size > 0; size -= 1) {
    for (let start = 0; start + size <= subject.length; start += 1)
      result.push(subject.slice(start, start + size).join(" "));
  }
  return result;
}

/**
 * Doubts about a page-level text that no single source can settle: an
 * excerpt cut short ("…") is not the whole description, "No Author", a
 * trademark or a profile link is no author, the site's own name as the author gives way to a person the
 * byline names, a brand that reads as a page title is no brand, a brand
 * that is the shop's own name may be the platform's default (a store's name
 * as every product's vendor) unless a label shows it, a page whose meta
 * and OpenGraph descriptions differ describes itself in more than one way, a short description that starts
 * with the site's name is the site's tagline, and a date read from a UTC instant near midnight may be another day
 * where the page was published (utc-date.ts).
 */
function plausibility(found: Candidate, hints: NameHints, page: PageValues): number {
  const text = texts(found.value, hints).join(" ");
  // The date as the page wrote it: a visible byline's value is already read into a date.
  if (asksCalendarDate(hints)) return calendarDayInDoubt(found.origin?.text ?? text, found.origin?.element) ? 0 : 1;
  if (/(\.\.\.|…|\[…\]|\[\.\.\.\])$/.test(text)) return 0.5;
  if (hints.subject.some((word) => ["description", "summary"].includes(word)))
    return page.descriptionsDisagree || namesSite(text, page) ? 0.6 : 1;
  if (isMaker(hints)) return isTitle(text, page) || page.siteNames.includes(squashed(text)) ? 0.5 : 1;
  if (!isAuthor(hints)) return 1;
  if (/^(no author|unknown|admin|anonymous)$/i.test(text.trim()) || !mayNamePerson(text)) return 0;
  const byline = page.byline().author?.value;
  return byline && page.siteNames.includes(squashed(text)) && !page.siteNames.includes(squashed(byline)) ? 0.6 : 1;
}

/** A field that asks for a day ("published_date"), not an instant ("published_time", "updated_at"). */
function asksCalendarDate(hints: NameHints): boolean {
  return (
    hints.subject.includes("date") && !hints.subject.some((word) => ["time", "datetime", "timestamp"].includes(word))
  );
}

/**
 * Whether an author text may be a name: a trademark sign marks a product or a brand ("THERMOMIX ® REZEPT"), and a
 * web address with a path ("facebook.com/site") is a link to a profile, neither of them a name.
 */
function mayNamePerson(text: string): boolean {
  return !/[®™]/.test(text) && !/^(www\.)?[\w-]+(\.[\w-]+)+\/\S+$/i.test(text.trim());
}

/** How much of a short text may follow the site's name for it to be the site's tagline ("Site - the news portal"). */
const MAX_TAGLINE_CHARS = 60;

/** A short text that starts with the site's name describes the site (its tagline), not the page. */
function namesSite(text: string, page: PageValues): boolean {
  const squashedText = squashed(text);
  return (
    text.length <= MAX_TAGLINE_CHARS && page.siteNames.some((site) => site.length >= 3 && squashedText.startsWith(site))
  );
}

function isMaker(hints: NameHints): boolean {
  return hints.subject.some((word) => ["brand", "manufacturer", "maker"].includes(word));
}

/** A page title rather than a name: the site's name set off by a separator ("Theatre Show | Deals Site"). */
function isTitle(text: string, page: PageValues): boolean {
  return text
    .split(/\s[|–—·]\s/)
    .slice(1)
    .some((part) => page.siteNames.some((site) => squashed(part).startsWith(site)));
}

export function isAuthor(hints: NameHints): boolean {
  return hints.subject.some((word) => ["author", "byline", "writer", "creator"].includes(word));
}

/** Listing pages can declare hundreds of entities; the one a page is about comes early. */
const MAX_CANDIDATES = 50;

/**
 * The entity the schema is about: of the content entities (an @graph often
 * holds an Article and a Recipe side by side), the one that has values for
 * the most top-level fields; the first one on a tie. One marked up in a related post or a sidebar counts only when
 * nothing else does, and only when there is no content entity does a supporting one (an Organization) stand in.
 */
export function primaryEntity(tree: ObjectNode, graph: Graph): Entity | undefined {
  const content = graph.entities.filter((e) => !isSupporting(e));
  // Items marked up in related posts, sidebars or comments describe other pages: the page's own come first.
  const own = content.filter((e) => {
    const element = itemElement(e);
    return element === undefined || !isElsewhere(element);
  });
  const candidates = own.length > 0 ? own : content.length > 0 ? content : graph.entities;
  let best: Entity | undefined;
  let bestScore = -1;
  for (const entity of candidates.slice(0, MAX_CANDIDATES)) {
    const source = nested(entity, graph);
    const score = tree.fields.filter((field) => find(fieldHints(field.name), source) !== undefined).length;
    if (score > bestScore) [best, bestScore] = [entity, score];
  }
  return best;
}

/**
 * Filling a schema level: each field's chosen value (builtin/scoring.ts)
 * read into the field's type and units, nested objects from the entities
 * they name, arrays from entities or the page's repeated blocks, and values
 * the page labels where no source answers.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { Element } from "domhandler";
import { elementsUnder, squashed } from "../../page/elements.js";
import { childPointer, type EvidenceTrail, type Origin } from "../../schema/evidence.js";
import type { NameHints } from "../../schema/field-names.js";
import {
  currencyCode,
  firstNumber,
  isoDate,
  parseBoolean,
  parseNumber,
  phoneNumbers,
  rescale,
} from "../../schema/normalize.js";
import { inNamedUnit } from "../../schema/units.js";
import { readBlocks } from "./blocks/index.js";
import { withoutByWord, withoutSiteRole } from "./byline.js";
import { candidateAt, nested, type Source } from "./candidates.js";
import { entity as at, CONCEPTS, SHOWN_FIRST } from "./concepts.js";
import { listTexts, texts, toQuantity } from "./flatten.js";
import { asEntity, asList, first, typesOf } from "./graph.js";
import { failsName, withoutInterfaceTail } from "./interface-text.js";
import type { Labelled } from "./labels.js";
import {
  labelsExactly,
  MIN_CONFIDENCE,
  matchLabel,
  matchShorterLabel,
  type Scored,
  singular,
  withoutOwnLabel,
} from "./match.js";
import { fieldHints, NAMING_WORDS, namesMainThing } from "./name-concepts.js";
import type { PageValues } from "./page-values.js";
import { declaredItems } from "./records/declared.js";
import { layoutList } from "./records/index.js";
import { find, isAuthor } from "./scoring.js";

/** `trail`, when given, collects the evidence of each value at its JSON pointer under `pointer`. */
export function fillObject(
  node: ObjectNode,
  source: Source,
  trail?: EvidenceTrail,
  pointer = "",
): Record<string, unknown> {
  return Object.fromEntries(
    node.fields.map((field) => [
      field.name,
      fill(field.node, fieldHints(field.name), source, { trail, pointer: childPointer(pointer, field.name) }),
    ]),
  );
}

/** Where a value goes: its pointer, and the trail that collects its evidence. */
interface At {
  trail: EvidenceTrail | undefined;
  pointer: string;
}

function fill(node: SchemaNode, hints: NameHints, source: Source, at: At): unknown {
  const found = find(hints, source, node.kind === "scalar" && node.type === "string");
  const confident = found && found.confidence >= MIN_CONFIDENCE ? found : undefined;
  const noted = <T>(value: T, scored: Scored<unknown> | undefined): T => {
    if (value !== undefined && value !== null && scored) at.trail?.note(at.pointer, scored.origin, scored.confidence);
    return value;
  };
  switch (node.kind) {
    case "scalar": {
      const value = meant(
        confident === undefined
          ? undefined
          : inFieldUnits(scalar(node.type, peopleOnly(confident.value, hints, source), hints), hints, source),
        hints,
        confident,
      );
      if (typeof value === "string" && isAuthor(hints)) {
        const author = withoutSiteRole(withoutByWord(value), source.page?.siteNames ?? []);
        const credited = source.page && creditedInstead(author, source.page);
        return credited ? noted(credited.value, credited) : noted(author, confident);
      }
      // `brand_name` is the brand: the label and the value's own label are looked for under the concept's word.
      const shown = hints.subject.find((word) => SHOWN_FIRST.has(word));
      if (value !== undefined && shown) {
        const concept = { ...hints, subject: [shown] };
        const labelled = fromLabel(node, concept, source, "exactly");
        if (labelled) return noted(labelled.value, labelled);
        return noted(typeof value === "string" ? withoutOwnLabel(value, concept) : value, confident);
      }
      if (value !== undefined) return noted(value, confident);
      // A name that asks what the page's thing is called is its heading before a label that says only part of the name.
      const labelled =
        fromLabel(node, hints, source) ?? mainTitle(node, hints, source) ?? fromLabel(node, hints, source, "shorter");
      if (labelled) return noted(labelled.value, labelled);
      hintNearName(hints, source, at);
      return null;
    }
    case "object": {
      // A field with no source of its own groups fields of the same entity: {"product": {"name", "price"}}.
      if (found === undefined) return fillObject(node, source, at.trail, at.pointer);
      const entity = confident === undefined ? undefined : asEntity(first(confident.value), source.graph);
      if (entity) return fillObject(node, nested(entity, source.graph), at.trail, at.pointer);
      return confident && typeof first(confident.value) === "string"
        ? textParts(node, hints, confident, source, at)
        : null;
    }
    case "array":
      return fillArray(node.items, hints, confident, source, at) ?? labelledList(node, hints, source, at) ?? null;
    case "any-array":
      return confident === undefined ? null : noted(asList(confident.value), confident);
    case "any-object":
      return (confident !== undefined && noted(asEntity(first(confident.value), source.graph), confident)) || null;
  }
}

/**
 * An object asked for a thing the page states as text (`author: {name, url}` where the byline names the author): the
 * part that names it (`name`, `title`) is what the flat field answers, and a link part is the link the text was read
 * from; any other part is not stated.
 */
function textParts(node: ObjectNode, hints: NameHints, found: Scored<unknown>, source: Source, at: At): unknown {
  const parts = node.fields.map(({ name, node: part }) => {
    const pointer = childPointer(at.pointer, name);
    const { subject, format } = fieldHints(name);
    if (subject.every((word) => NAMING_WORDS.has(word)) && part.kind === "scalar")
      return [name, fill(part, hints, source, { trail: at.trail, pointer })];
    const link = format === "url" && part.kind === "scalar" ? linkOf(found.origin?.element, source) : undefined;
    if (link) at.trail?.note(pointer, found.origin, found.confidence);
    return [name, link ?? null];
  });
  return parts.some(([, value]) => value !== null) ? Object.fromEntries(parts) : null;
}

/** The address of the link an element is or holds (resolved against the page's), if it is one link. */
function linkOf(element: Element | undefined, source: Source): string | undefined {
  const links = element
    ? [element, ...elementsUnder(element, MAX_LINK_ELEMENTS)].filter((e) => e.tagName === "a" && e.attribs.href)
    : [];
  const href =
    links.length > 0 && new Set(links.map((a) => a.attribs.href)).size === 1 ? links[0]!.attribs.href! : undefined;
  return href && URL.canParse(href, source.page?.baseUrl) ? new URL(href, source.page?.baseUrl).href : undefined;
}

/** A byline holds a few elements; more is not one credit's markup. */
const MAX_LINK_ELEMENTS = 20;

/**
 * A text value as the field's name means it: without an interface phrase after it, and no value at all when what is
 * left is interface text or fails the name (interface-text.ts). `at` is where it was read.
 */
function meant(value: unknown, hints: NameHints, at: { element?: Element; origin?: Origin } | undefined): unknown {
  if (typeof value !== "string") return value;
  const element = at?.element ?? at?.origin?.element;
  const text = withoutInterfaceTail(value, element);
  return failsName(text, hints, element) ? undefined : text;
}

/** An author list without the site itself, which pages add beside the people ("Kim Lee, Site Example"). */
function peopleOnly(found: unknown, hints: NameHints, source: Source): unknown {
  if (!isAuthor(hints) || !Array.isArray(found) || !source.page) return found;
  const { siteNames } = source.page;
  const people = found.filter((item) => !texts(item, hints).some((text) => siteNames.includes(squashed(text))));
  return people.length > 0 ? people : found;
}

/**
 * The person the article's text credits, in place of a weak author: the site's own name (a syndicated post's data
 * names the site or the account that posted it) or a lone given name the credit starts ("Nils" for "Eine Kolumne von
 * Nils Pickert"). Any other author stays: the page's data and byline outweigh a line of text.
 */
function creditedInstead(author: string, page: PageValues): Scored<string> | undefined {
  const siteOwn = page.siteNames.includes(squashed(author));
  const givenName = !/\s/.test(author.trim());
  if (!siteOwn && !givenName) return undefined;
  const credit = page.credit();
  if (!credit || page.siteNames.includes(squashed(credit.value))) return undefined;
  return siteOwn || squashed(credit.value.split(/\s+/)[0]!) === squashed(author) ? credit : undefined;
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
    const stated =
      textAt("offers.priceCurrency", source) ??
      textAt("priceCurrency", source) ??
      source.page?.offer().shownCurrency?.value;
    if (stated && (currencyCode(stated) ?? stated.trim().toUpperCase()) !== hints.currency) return undefined;
  }
  const best = hints.scale
    ? Number(textAt("aggregateRating.bestRating", source) ?? textAt("reviewRating.bestRating", source))
    : NaN;
  return hints.scale && Number.isFinite(best) && best > 0 ? rescale(number, best, hints.scale) : number;
}

function textAt(path: string, source: Source): string | undefined {
  const value = first(candidateAt(at(path), source)?.value);
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

function scalar(type: string, found: unknown, hints: NameHints): unknown {
  if (type === "string") return texts(found, hints).join("\n") || undefined;
  if (type === "boolean") return typeof first(found) === "string" ? parseBoolean(first(found) as string) : first(found);
  return toQuantity(first(found), hints);
}

function fillArray(
  items: SchemaNode,
  hints: NameHints,
  found: Scored<unknown> | undefined,
  source: Source,
  at: At,
): unknown[] | undefined {
  const { graph } = source;
  if (items.kind === "object") {
    // A list of things with no property of its own may be the page's entities of that type: "products" → Product.
    const list =
      found !== undefined
        ? asList(found.value)
        : graph.entities.filter((e) => typesOf(e).includes(singular(hints.subject.join(""))));
    const typed = list.map((item) => asEntity(item, graph)).filter((e) => e !== undefined);
    // Or the items of a list the page declares (an ItemList), where they hold the item's fields.
    const entities = typed.length > 0 || found !== undefined ? typed : (declaredItems(items, graph) ?? []);
    if (entities.length > 0)
      return entities.map((entity, index) =>
        fillObject(items, nested(entity, graph), at.trail, childPointer(at.pointer, index)),
      );
    // Else the page's repeated blocks may hold them; what the data states for an item's field (a flat ingredient list)
    // helps find them.
    const known = (name: string) => {
      const stated = find(fieldHints(name), source);
      return stated && stated.confidence >= MIN_CONFIDENCE ? listTexts(stated.value, fieldHints(name)) : [];
    };
    // Or the page's main list of records, found by its layout alone (records/index.ts weighs the two).
    const { page } = source;
    return (
      page &&
      layoutList(
        page.document,
        page.baseUrl,
        items,
        hints,
        (trail) => readBlocks(page.document, items, hints, known, trail, at.pointer),
        at.trail,
        at.pointer,
      )
    );
  }
  if (found === undefined) return undefined;
  const values =
    items.kind === "scalar" && items.type === "string"
      ? listTexts(found.value, hints)
      : asList(found.value).map((item) => (items.kind === "scalar" ? toQuantity(item, hints) : item));
  noteItems(values, found, at);
  return values;
}

/**
 * Each item's evidence: its own text, and its own element where the list
 * was read from one element per item (microdata properties), else the
 * element that holds the whole list.
 */
function noteItems(values: unknown[], found: Scored<unknown>, at: At): void {
  const { origin } = found;
  if (!origin || !at.trail) return;
  const elements = origin.items?.length === values.length ? origin.items : undefined;
  values.forEach((value, index) => {
    const text = typeof value === "string" || typeof value === "number" ? String(value) : origin.text;
    at.trail!.note(
      childPointer(at.pointer, index),
      { ...origin, text, element: elements?.[index] ?? origin.element },
      found.confidence,
    );
  });
}

/** A list the page labels for the field ("Genres: Crime | Thriller"). */
function labelledList(node: SchemaNode, hints: NameHints, source: Source, at: At): unknown[] | undefined {
  const labelled = fromLabel(node, hints, source) ?? fromLabel(node, hints, source, "shorter");
  if (!labelled || !Array.isArray(labelled.value)) return undefined;
  noteItems(labelled.value, labelled, at);
  return labelled.value;
}

/**
 * A warning for a field left null whose name holds the name of a concept the page does answer (`publication_day`
 * null while `published` has a value): the caller may have meant it. Only top-level fields, one lookup per word.
 */
function hintNearName(hints: NameHints, source: Source, at: At): void {
  if (!source.page || !at.trail || hints.subject.length < 2) return;
  for (const word of hints.subject) {
    if (NAMING_WORDS.has(word) || !CONCEPTS.has(word)) continue;
    const near = find({ ...hints, subject: [word] }, source);
    if (near && near.confidence >= MIN_CONFIDENCE) {
      at.trail.warnings.push({
        code: "name-hint",
        message: `no value for this name; the page answers the near name "${word}"`,
        path: at.pointer,
      });
      return;
    }
  }
}

/** The page's heading for a text field that asks what the page's main thing is called (`product_name`), when nothing better answers. */
function mainTitle(node: SchemaNode, hints: NameHints, source: Source): Scored<unknown> | undefined {
  const headline = source.page?.headline;
  if (node.kind !== "scalar" || node.type !== "string" || !headline || !namesMainThing(hints)) return undefined;
  return headline.confidence >= MIN_CONFIDENCE && meant(headline.value, hints, headline) !== undefined
    ? headline
    : undefined;
}

/**
 * A value the page labels for the field ("ISBN-13: 978-..."), read into the
 * field's type; undefined when no label matches confidently or its value
 * does not read as the type (a date field's label followed by no date).
 * `exactly`: only a label that says the field's name or a synonym as written; `shorter`: only one that says part of it
 * (match.ts: matchShorterLabel).
 */
function fromLabel(
  node: SchemaNode,
  hints: NameHints,
  source: Source,
  how: "whole" | "exactly" | "shorter" = "whole",
): Scored<unknown> | undefined {
  if (!source.page) return undefined;
  const { labels } = source.page;
  const exactly = how === "exactly";
  const { match, hints: said } =
    how === "shorter"
      ? (matchShorterLabel(hints, labels) ?? { match: undefined, hints })
      : { match: matchLabel(hints, labels), hints };
  if (!match || match.confidence < MIN_CONFIDENCE || (exactly && !labelsExactly(hints, match.value.label)))
    return undefined;
  const value = meant(labelValue(node, said, match.value), said, match.value);
  return value === undefined
    ? undefined
    : {
        value,
        confidence: match.confidence,
        origin: { source: "label", text: match.value.value, element: match.value.element },
      };
}

function labelValue(node: SchemaNode, hints: NameHints, { value, items }: Labelled): unknown {
  if (node.kind === "array") {
    if (node.items.kind !== "scalar" || node.items.type !== "string") return undefined;
    return items.length > 0 ? items : value.split(/\s*[|;•]\s*|\s*,\s+/).filter((item) => item.length > 0);
  }
  if (node.kind !== "scalar") return undefined;
  switch (node.type) {
    case "string":
      return hints.format === "iso8601" ? isoDate(value) : isPhone(hints) ? phoneNumbers(value) : value;
    case "boolean":
      return parseBoolean(value);
    default: {
      const stated = currencyCode(value);
      if (hints.currency && stated && stated !== hints.currency) return undefined;
      // "$9,970", "1 hr 30 mins", "1.2 kg" for grams; "205 lbs." (a short value with a number and a unit) unless the
      // name states a measure's unit, which a number without one may not be in.
      return (
        parseNumber(value) ??
        inNamedUnit(value, hints) ??
        (value.length <= 30 && !hints.measureUnit ? firstNumber(value) : undefined)
      );
    }
  }
}

const PHONE_WORDS = new Set(["phone", "telephone", "tel", "fax", "mobile"]);

function isPhone(hints: NameHints): boolean {
  return hints.subject.some((word) => PHONE_WORDS.has(word));
}

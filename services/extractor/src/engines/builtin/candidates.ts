/**
 * Candidates: what one place (a property path in the page's entities, a
 * meta tag, a part of the page read for itself) holds, with how sure its
 * source is. Scoring (builtin/scoring.ts) weighs them against the field.
 */
import { durationSeconds } from "../../schema/units.js";
import type { PagePart, Place } from "./concepts.js";
import {
  asEntity,
  type Entity,
  first,
  type Graph,
  isPresent,
  isSupporting,
  ownValue,
  statedOrigin,
  variantsOf,
} from "./graph.js";
import type { Scored } from "./match.js";
import type { PageValues } from "./page-values.js";

/** A value found at a place, as sure as its source. */
export type Candidate = Place & Scored<unknown>;

/** What a schema level is filled from. */
export interface Source {
  entities: Entity[];
  /** Page-level values; only for the top level, not inside nested entities. */
  page: PageValues | undefined;
  graph: Graph;
}

export function nested(entity: Entity, graph: Graph): Source {
  return { entities: [entity], page: undefined, graph };
}

export function candidateAt(place: Place, source: Source): Candidate | undefined {
  const found =
    place.kind === "meta"
      ? metaValue(place.name, source)
      : place.kind === "page"
        ? pageValue(place.part, source)
        : place.kind === "sum"
          ? durationSum(place.paths, source)
          : entityValue(place.path, source);
  return found && { ...place, ...found };
}

/** Seconds as an ISO 8601 duration: 5700 → "PT1H35M". */
function isoDuration(seconds: number): string {
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  return `PT${h ? `${h}H` : ""}${m || (!h && !s) ? `${m}M` : ""}${s ? `${s}S` : ""}`;
}

/** How much less sure a sum is than the durations it adds up: the page never states it. */
const DERIVED = 0.8;

/**
 * The sum of durations stated apart (a recipe's preparation and cooking), as an ISO 8601 duration; every part must be
 * there.
 */
function durationSum(paths: string[], source: Source): Scored<unknown> | undefined {
  const parts = paths.map((path) => entityValue(path, source));
  const seconds = parts.map((part) => (typeof part?.value === "string" ? durationSeconds(part.value) : undefined));
  if (seconds.some((s) => s === undefined)) return undefined;
  const total = seconds.reduce((a, b) => a! + b!, 0)!;
  const text = parts.map((part) => part!.origin?.text ?? String(part!.value)).join(" + ");
  return {
    value: isoDuration(total),
    confidence: Math.min(...parts.map((part) => part!.confidence)) * DERIVED,
    origin: { ...parts[0]!.origin!, text },
  };
}

function metaValue(name: string, source: Source): Scored<unknown> | undefined {
  const value = source.page?.data.meta.get(name);
  return value
    ? {
        value,
        confidence: 1,
        origin: { source: "meta", text: value, element: source.page?.data.metaElements.get(name) },
      }
    : undefined;
}

function pageValue(part: PagePart, source: Source): Scored<unknown> | undefined {
  const { page } = source;
  if (!page) return undefined;
  switch (part) {
    case "headline":
      return page.headline;
    case "date":
      return page.byline().date;
    case "author":
      return page.byline().author;
    // The offer has weighed every offer and the buy box: what it leaves open, no single one of them answers.
    case "price":
      return settled(page.offer().price);
    case "availability":
      return settled(page.offer().inStock);
    // An id read from the address alone is a fair guess, no more: any id the page states comes first.
    case "address id": {
      const id = page.addressId();
      return id === undefined ? undefined : { value: id.value, confidence: 0.65, origin: id.origin };
    }
    case "maker":
      return page.makerLine();
    case "lone paragraph":
      return page.loneParagraph();
    case "rating":
      return page.ratingText().rating;
    case "review count":
      return page.ratingText().count;
    case "currency": {
      const shown = page.offer().shownCurrency;
      return shown ? { value: shown.value, confidence: 0.7, origin: shown.origin } : undefined;
    }
  }
}

function entityValue(path: string, source: Source): Scored<unknown> | undefined {
  for (const entity of source.entities) {
    let value: unknown = entity;
    let holder: Entity | undefined;
    for (const key of path.split(".")) {
      holder = asEntity(first(value), source.graph);
      value = holder ? ownValue(holder, key) : undefined;
    }
    if (!isPresent(value)) continue;
    if (holder && isVariantId(holder, path.split(".").at(-1)!, value, source.graph)) continue;
    // A stand-in main entity (an Organization, when the page declares nothing else) is not what the page is about,
    // and the name of a WebPage is usually its <title>, site name and all.
    const standIn =
      source.page &&
      isSupporting(entity) &&
      entity !== source.page.subject &&
      (entity === source.entities[0] || path === "name");
    const confidence = standIn ? 0.6 : 1;
    // References ({"@id": "#author"}) followed: the value is the entity they name, and so is its stated text.
    const resolved = Array.isArray(value)
      ? value.map((item) => asEntity(item, source.graph) ?? item)
      : (asEntity(value, source.graph) ?? value);
    return { value: resolved, confidence, origin: statedOrigin(holder, path.split(".").at(-1)!, resolved) };
  }
  return undefined;
}

/** Keys that identify one article a shop sells: each size or colour of a product has its own. */
const IDENTIFIERS = new Set(["sku", "mpn", "productid", "gtin", "gtin8", "gtin12", "gtin13", "gtin14"]);

/**
 * Whether an identifier is one variant's: the page declares the same thing (same type, same name) more than once
 * with other identifiers, one entity per size or colour. None of them is the product's own, and picking the first
 * would answer one size's code for the whole product.
 */
function isVariantId(holder: Entity, key: string, value: unknown, graph: Graph): boolean {
  if (!IDENTIFIERS.has(key.toLowerCase())) return false;
  return variantsOf(holder, graph).some((other) => {
    const id = ownValue(other, key);
    return isPresent(id) && JSON.stringify(id) !== JSON.stringify(value);
  });
}

function settled<T>(found: Scored<T> | undefined): Scored<T | undefined> {
  return { value: found?.value, confidence: found?.confidence ?? 0, settled: true, origin: found?.origin };
}

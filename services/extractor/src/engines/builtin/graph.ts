/**
 * Structured data as one graph of entities: JSON-LD blocks (with @graph and
 * @id references) plus the items of microdata and RDFa, which read into the
 * same shape (`@type` and properties), so one matcher serves all three.
 */

import type { Element } from "domhandler";
import type { Origin } from "../../schema/evidence.js";
import { SUPPORTING_TYPES } from "./concepts.js";

export type Entity = Record<string, unknown>;

/**
 * Where an entity read from the page's markup (microdata, RDFa, microformats) sits: the item's element and each
 * property's.
 */
export interface Markup {
  item: Element;
  /** By property name in lower case, in page order. */
  properties: Map<string, Element[]>;
}

const markupOfEntity = new WeakMap<Entity, Markup>();

export function markEntity(entity: Entity, markup: Markup): void {
  markupOfEntity.set(entity, markup);
}

/** The markup an entity was read from; undefined for JSON-LD. */
function markupOf(entity: Entity): Markup | undefined {
  return markupOfEntity.get(entity);
}

/** The element an entity was read from (a microdata item's); undefined for JSON-LD. */
export function itemElement(entity: Entity): Element | undefined {
  return markupOf(entity)?.item;
}

export interface Graph {
  /** Top-level entities, @graph members included, in page order. */
  entities: Entity[];
  /** Entities by @id, so references such as {"@id": "#author"} resolve. */
  byId: Map<string, Entity>;
}

export function readGraph(blocks: unknown[]): Graph {
  const entities: Entity[] = [];
  const byId = new Map<string, Entity>();
  const index = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(index);
      return;
    }
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
    for (const member of members)
      if (typeof member === "object" && member !== null && !Array.isArray(member)) entities.push(member as Entity);
    index(block);
  }
  return { entities, byId };
}

/** A value as an entity, following an {"@id": ...} reference to the full entity. */
export function asEntity(value: unknown, graph: Graph): Entity | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entity = value as Entity;
  const id = entity["@id"];
  return Object.keys(entity).length === 1 && typeof id === "string" ? (graph.byId.get(id) ?? entity) : entity;
}

/** The entity's types in lower case, without a vocabulary prefix ("http://schema.org/Recipe" → "recipe"). */
export function typesOf(entity: Entity): string[] {
  return asList(entity["@type"])
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.replace(/^.*[/#:]/, "").toLowerCase());
}

/** A property by name, ignoring case (JSON-LD in the wild is not consistent), own properties only. */
export function ownValue(entity: Entity, key: string): unknown {
  if (Object.hasOwn(entity, key)) return entity[key];
  const lower = key.toLowerCase();
  const match = Object.keys(entity).find((k) => k.toLowerCase() === lower);
  return match === undefined ? undefined : entity[match];
}

export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.length === 0);
}

export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}

export function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The other entities of the same thing: some pages declare a product once per size or colour, each entity with the
 * same name and type.
 */
export function variantsOf(entity: Entity, graph: Graph): Entity[] {
  const name = ownValue(entity, "name");
  if (!isPresent(name)) return [];
  const types = typesOf(entity);
  return graph.entities.filter(
    (e) => e !== entity && ownValue(e, "name") === name && typesOf(e).some((t) => types.includes(t)),
  );
}

/** An entity that supports the page (its publisher, its site) rather than being what the page is about. */
export function isSupporting(entity: Entity): boolean {
  return typesOf(entity).some((t) => SUPPORTING_TYPES.has(t));
}

/**
 * Where structured data states an entity's property: a JSON-LD block (no element), or the markup of a microdata item
 * and its property.
 */
export function statedOrigin(holder: Entity | undefined, key: string, value: unknown): Origin {
  const text = statedText(value);
  const markup = holder && markupOf(holder);
  if (!markup) return { source: "json-ld", text };
  const elements = markup.properties.get(key.toLowerCase()) ?? [];
  return {
    source: "microdata",
    text,
    element: elements[0] ?? markup.item,
    items: elements.length > 1 ? elements : undefined,
  };
}

/** A value as the data states it: a text or number as written, a thing by its name. */
function statedText(value: unknown): string | undefined {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value))
    return (
      value
        .map(statedText)
        .filter((text) => text !== undefined)
        .join(", ") || undefined
    );
  if (typeof value !== "object" || value === null) return undefined;
  const entity = value as Entity;
  return ["name", "text", "@value", "url"]
    .map((key) => ownValue(entity, key))
    .find((text) => typeof text === "string") as string | undefined;
}

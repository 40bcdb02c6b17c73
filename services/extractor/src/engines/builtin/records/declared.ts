/**
 * Lists the page declares in its structured data: the items of an ItemList
 * (JSON-LD or microdata), each ListItem's `item` or the ListItem itself.
 * They answer an array of objects where their items hold most of its
 * fields; a list of other things (a carousel of related recipes beside the
 * schema's ingredient groups) does not.
 */
import type { ObjectNode } from "@winnow/platform";
import { nested } from "../candidates.js";
import { asEntity, asList, type Entity, type Graph, ownValue, typesOf } from "../graph.js";
import { MIN_CONFIDENCE } from "../match.js";
import { fieldHints } from "../name-concepts.js";
import { find } from "../scoring.js";

/** Share of (item, field) pairs a declared list must answer. */
const MIN_FILL = 0.6;
/** Items weighed per list: the first ones tell. */
const SAMPLE = 20;

export function declaredItems(item: ObjectNode, graph: Graph): Entity[] | undefined {
  let best: { items: Entity[]; fill: number } | undefined;
  for (const list of itemLists(graph)) {
    const items = asList(ownValue(list, "itemListElement")).flatMap((element) => {
      const entity = asEntity(element, graph);
      if (!entity) return [];
      const inner = typesOf(entity).includes("listitem") ? asEntity(ownValue(entity, "item"), graph) : undefined;
      return [inner ?? entity];
    });
    if (items.length === 0) continue;
    const sample = items.slice(0, SAMPLE);
    const answered = sample.reduce(
      (sum, entity) =>
        sum +
        item.fields.filter(
          (field) => (find(fieldHints(field.name), nested(entity, graph))?.confidence ?? 0) >= MIN_CONFIDENCE,
        ).length,
      0,
    );
    const fill = answered / (sample.length * Math.max(item.fields.length, 1));
    if (fill >= MIN_FILL && (!best || fill > best.fill)) best = { items, fill };
  }
  return best?.items;
}

/** The page's ItemLists, top-level or held by another entity (a page's mainEntity). */
function itemLists(graph: Graph): Entity[] {
  const found: Entity[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 4 || found.length > 20) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth);
      return;
    }
    const entity = asEntity(value, graph);
    if (!entity) return;
    if (typesOf(entity).includes("itemlist")) {
      found.push(entity);
      return;
    }
    for (const key of ["mainEntity", "mainEntityOfPage", "hasPart", "about"]) visit(ownValue(entity, key), depth + 1);
  };
  graph.entities.forEach((entity) => visit(entity, 0));
  return found;
}

/**
 * Microdata (itemscope/itemtype/itemprop) and RDFa (typeof/property) items
 * read as JSON-LD-shaped entities: `@type` from the type's last path
 * segment, each property's value from the attribute HTML defines for it
 * (content, datetime, href, src) or the element's text; nested items become
 * nested entities.
 */
import type { Cheerio, CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { collapsed, documentElements } from "../../page/elements.js";
import { type Entity, markEntity } from "./graph.js";

interface Syntax {
  /** The attribute that makes an element an item's scope, and the selector for it. */
  scopeAttribute: string;
  scope: string;
  type: string;
  property: string;
}

const MICRODATA: Syntax = { scopeAttribute: "itemscope", scope: "[itemscope]", type: "itemtype", property: "itemprop" };
const RDFA: Syntax = { scopeAttribute: "typeof", scope: "[typeof]", type: "typeof", property: "property" };

/** Bounds the work on pages that mark up thousands of items (listings, comment threads). */
const MAX_ITEMS = 200;
const MAX_TEXT = 5000;

export function readItems($: CheerioAPI): Entity[] {
  return [MICRODATA, RDFA].flatMap((syntax) =>
    documentElements($)
      .filter(({ attribs }) => attribs[syntax.scopeAttribute] !== undefined && attribs[syntax.property] === undefined)
      .slice(0, MAX_ITEMS)
      .map((element) => readItem($, $(element), syntax)),
  );
}

function readItem($: CheerioAPI, scope: Cheerio<Element>, syntax: Syntax): Entity {
  const entity: Entity = {};
  const properties = new Map<string, Element[]>();
  markEntity(entity, { item: scope[0]!, properties });
  const type = scope.attr(syntax.type)?.trim().split(/\s+/)[0];
  if (type) entity["@type"] = type;
  // Properties of this item: those whose nearest enclosing scope is this one.
  scope.find(`[${syntax.property}]`).each((_, element) => {
    const node = $(element);
    if (node.parents(syntax.scope).first()[0] !== scope[0]) return;
    const value = node.is(syntax.scope) ? readItem($, node, syntax) : propertyValue(node);
    if (value === "") return;
    for (const name of (node.attr(syntax.property) ?? "").trim().split(/\s+/)) {
      // RDFa writes "schema:name" or a full IRI; microdata a plain name.
      const key = name.replace(/^.*[/#:]/, "");
      if (!key || key === "__proto__") continue;
      properties.set(key.toLowerCase(), [...(properties.get(key.toLowerCase()) ?? []), element]);
      const existing = entity[key];
      entity[key] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
  });
  return entity;
}

function propertyValue(node: Cheerio<Element>): string {
  const tag = node[0]?.tagName.toLowerCase();
  const attribute =
    node.attr("content") ??
    (tag === "time" ? node.attr("datetime") : undefined) ??
    (tag === "a" || tag === "link" || tag === "area" ? node.attr("href") : undefined) ??
    (tag === "img" || tag === "source" || tag === "audio" || tag === "video" || tag === "embed"
      ? node.attr("src")
      : undefined) ??
    (tag === "meta" ? "" : undefined) ??
    (tag === "data" || tag === "meter" ? node.attr("value") : undefined);
  return collapsed(attribute ?? node.text()).slice(0, MAX_TEXT);
}

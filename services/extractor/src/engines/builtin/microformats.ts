/**
 * hCard microformats (class="vcard" with fn, org, tel, adr, url, email;
 * and their microformats2 forms h-card, p-name, ...) read as JSON-LD-shaped
 * Person or Organization entities, so contact details marked this way match
 * like any structured data.
 */
import type { Cheerio, CheerioAPI } from "cheerio";
import type { Element } from "domhandler";
import { collapsed, documentElements } from "../../page/elements.js";
import { type Entity, markEntity } from "./graph.js";

/** A card's class among the element's classes, as the selector `.vcard, .h-card` matches it. */
const CARD_CLASS = /(?:^|\s)(?:vcard|h-card)(?:\s|$)/;
/** Bounds the work on pages that mark every commenter with a card. */
const MAX_CARDS = 20;

const ADDRESS_PARTS: [string, string][] = [
  ["street-address", "streetAddress"],
  ["locality", "addressLocality"],
  ["region", "addressRegion"],
  ["postal-code", "postalCode"],
  ["country-name", "addressCountry"],
];

export function readCards($: CheerioAPI): Entity[] {
  return documentElements($)
    .filter((element) => CARD_CLASS.test(element.attribs.class ?? ""))
    .slice(0, MAX_CARDS)
    .map((card) => readCard($(card)))
    .filter((entity) => Object.keys(entity).length > 1);
}

function readCard(card: Cheerio<Element>): Entity {
  const part = (name: string) => text(card.find(`.${name}, .p-${name}`).first());
  const name = part("fn") || part("name");
  const org = part("org");
  const entity: Entity = { "@type": org && (!name || org === name) ? "Organization" : "Person" };
  if (name || org) entity.name = name || org;
  const tel = card.find(".tel, .p-tel").first();
  const telephone = text(tel.find(".value").first()) || text(tel);
  if (telephone) entity.telephone = telephone;
  // The address alone: cards often keep their label inside ("E-mail: kim@example.org").
  const email = /[^\s:<>]+@[^\s:<>]+\.[a-z]{2,}/i.exec(part("email"))?.[0];
  if (email) entity.email = email;
  const link = card.find(".url, .u-url").first();
  const url = link.attr("href") ?? /(https?:\/\/|www\.)\S+/i.exec(text(link))?.[0];
  if (url) entity.url = url;
  const address = Object.fromEntries(
    ADDRESS_PARTS.map(([cls, key]) => [key, part(cls)] as const).filter(([, value]) => value),
  );
  if (Object.keys(address).length > 0) entity.address = { "@type": "PostalAddress", ...address };
  // The card holds every value read from it; its parts are not told apart here.
  markEntity(entity, { item: card[0]!, properties: new Map() });
  return entity;
}

function text(node: Cheerio<Element>): string {
  return collapsed(node.text());
}

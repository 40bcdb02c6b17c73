/**
 * A product's price and availability, weighed by agreement between what the
 * page states in structured data (its offers, its variants' offers, product
 * meta tags) and what a shopper sees in the buy box: where both say the same,
 * the value is sure; where they differ, the engine says so with a confidence
 * too low to answer rather than pick one blindly.
 */

import type { StructuredData } from "../../page/page.js";
import type { Origin } from "../../schema/evidence.js";
import { firstNumber, parseBoolean, parseNumber, readPrice } from "../../schema/normalize.js";
import type { BuyBox } from "./buy-box.js";
import { asEntity, asList, type Entity, type Graph, ownValue, statedOrigin, variantsOf } from "./graph.js";
import type { Scored } from "./match.js";

export interface Offer {
  price: Scored<number> | undefined;
  /** The currency the buy box shows, for a page whose data states none, with the price it was shown with. */
  shownCurrency: { value: string; origin: Origin | undefined } | undefined;
  inStock: Scored<boolean> | undefined;
}

/** An amount or availability the page states in its data, with where. */
interface Stated<T> {
  value: T;
  origin: Origin;
}

/**
 * How sure: the data and the buy box agree; the data alone; they disagree
 * (below the engine's threshold, so left null); the buy box alone; a shown
 * price as the only sign of stock.
 */
const AGREED = 0.95;
const STATED = 0.9;
const DISPUTED = 0.5;
const SHOWN = 0.7;
const ON_OFFER = 0.65;

const META_PRICES = ["product:price:amount", "og:price:amount", "price", "og:price"];
const META_AVAILABILITY = ["product:availability", "og:availability", "availability"];

export function readOffer(
  primary: Entity | undefined,
  graph: Graph,
  data: Pick<StructuredData, "meta" | "metaElements">,
  box: BuyBox,
): Offer {
  const offers = productsOf(primary, graph).flatMap((product) => offersOf(product, graph));
  const inMeta = (name: string): Origin => ({
    source: "meta",
    text: data.meta.get(name),
    element: data.metaElements.get(name),
  });
  const prices = [
    ...offers.flatMap((offer) => pricesOf(offer, graph)),
    ...META_PRICES.flatMap((name) => amount(data.meta.get(name)).map((value) => ({ value, origin: inMeta(name) }))),
  ];
  // The same amount stated twice is one price, stated where it is first.
  const stated = prices.filter((found, index) => prices.findIndex((other) => other.value === found.value) === index);
  const availability = [
    ...offers.map((offer) => ({
      value: ownValue(offer, "availability"),
      origin: statedOrigin(offer, "availability", ownValue(offer, "availability")),
    })),
    ...META_AVAILABILITY.map((name) => ({ value: data.meta.get(name), origin: inMeta(name) })),
  ];
  const shownCurrency =
    box.price?.currency === undefined ? undefined : { value: box.price.currency, origin: box.price.origin };
  return { price: price(stated, box.price), shownCurrency, inStock: inStock(availability, box.inStock, box.price) };
}

/**
 * The stated price the buy box confirms (in any reading of its written form);
 * one stated price alone; else the price shown. Several different stated
 * prices (a sale and a regular offer, sellers) or a shown price that none
 * confirms leave the engine unsure.
 */
function price(stated: Stated<number>[], shown: BuyBox["price"]): Scored<number> | undefined {
  if (shown && stated.length > 0) {
    const agreed = stated.find(({ value }) => shown.amounts.some((reading) => Math.abs(reading - value) < 0.005));
    // Agreed, the price is the one the shopper sees.
    if (agreed !== undefined) return { value: agreed.value, confidence: AGREED, origin: shown.origin };
    // Only a number the markup calls a price can dispute the data; another may be a shipping cost or an instalment.
    if (shown.named) return { ...stated[0]!, confidence: DISPUTED };
  }
  if (stated.length > 0) return { ...stated[0]!, confidence: stated.length === 1 ? STATED : DISPUTED };
  // Shown alone, a price is trusted only where the markup names it one.
  return shown && { value: shown.amounts[0]!, confidence: shown.named ? SHOWN : DISPUTED, origin: shown.origin };
}

/**
 * In stock when any offer can be bought (a product with sizes is available
 * while one size is), out of stock when the offers say so; the buy box
 * confirms or disputes it, or answers alone.
 */
function inStock(
  availability: Stated<unknown>[],
  shown: Scored<boolean> | undefined,
  price: BuyBox["price"],
): Scored<boolean> | undefined {
  const said = availability.flatMap(({ value, origin }) => {
    const read = typeof value === "string" ? parseBoolean(value) : undefined;
    return read === undefined ? [] : [{ value: read, origin }];
  });
  const stated = said.find(({ value }) => value) ?? said[0];
  // A shop says "sold out" where it cannot sell: a price marked up as one, with no such word around it, is on offer.
  if (stated === undefined)
    return shown ?? (price?.named ? { value: true, confidence: ON_OFFER, origin: price.origin } : undefined);
  if (!shown) return { ...stated, confidence: STATED };
  return shown.value === stated.value ? { ...shown, confidence: AGREED } : { ...stated, confidence: DISPUTED };
}

/** The main product and its variants, which some pages declare as products of the same name (one per size). */
function productsOf(primary: Entity | undefined, graph: Graph): Entity[] {
  return primary ? [primary, ...variantsOf(primary, graph)] : [];
}

/** An entity's offers, those inside an AggregateOffer included. */
function offersOf(entity: Entity, graph: Graph): Entity[] {
  return asList(ownValue(entity, "offers")).flatMap((item) => {
    const offer = asEntity(item, graph);
    if (!offer) return [];
    const inner = ownValue(offer, "offers");
    return inner === undefined ? [offer] : [offer, ...offersOf(offer, graph)];
  });
}

function pricesOf(offer: Entity, graph: Graph): Stated<number>[] {
  const specifications = asList(ownValue(offer, "priceSpecification"))
    .map((item) => asEntity(item, graph))
    .filter((e) => e !== undefined);
  return [offer, ...specifications].flatMap((entity) =>
    ["price", "lowPrice"].flatMap((key) =>
      asList(ownValue(entity, key)).flatMap((written) =>
        amount(written).map((value) => ({ value, origin: statedOrigin(entity, key, written) })),
      ),
    ),
  );
}

/**
 * A stated amount; a text that crams in more ("10,75 € 11,95 €", the price
 * and the old price) states its first. Zero is left out, being what shop
 * templates write for "no price".
 */
function amount(value: unknown): number[] {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string"
        ? (parseNumber(value) ?? readPrice(value)?.amount ?? firstNumber(value))
        : undefined;
  return number !== undefined && number > 0 ? [number] : [];
}

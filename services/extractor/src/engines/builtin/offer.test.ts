import { describe, expect, it } from "vitest";
import type { BuyBox } from "./buy-box.js";
import { type Entity, readGraph } from "./graph.js";
import { readOffer } from "./offer.js";

const product = (offers: unknown, extra: Entity = {}): Entity => ({
  "@type": "Product",
  name: "Trail Shoe",
  offers,
  ...extra,
});
const offer = (entities: Entity[], box: Partial<BuyBox> = {}, meta: [string, string][] = []) =>
  readOffer(
    entities[0],
    readGraph(entities),
    { meta: new Map(meta), metaElements: new Map() },
    { price: undefined, inStock: undefined, ...box },
  );
const shown = (amounts: number[], named = true): BuyBox["price"] => ({ amounts, currency: "EUR", named });

describe("readOffer", () => {
  it("is sure of a price the data states and the buy box shows, in any reading of its written form", () => {
    expect(offer([product({ price: "229990" })], { price: shown([229.99, 229990]) }).price).toMatchObject({
      value: 229990,
      confidence: 0.95,
    });
    // Of several stated prices (a regular and a sale offer), the one the shopper sees.
    expect(offer([product([{ price: "18.00" }, { price: "17.10" }])], { price: shown([17.1]) }).price).toMatchObject({
      value: 17.1,
      confidence: 0.95,
    });
  });

  it("doubts a price when sources disagree or several prices are stated and none is shown", () => {
    expect(offer([product({ price: "90" })], { price: shown([400]) }).price?.confidence).toBeLessThan(0.6);
    expect(offer([product([{ price: "18.00" }, { price: "17.10" }])]).price?.confidence).toBeLessThan(0.6);
    // A number the markup does not call a price (a shipping cost, an instalment) disputes nothing.
    expect(offer([product({ price: "70.5" })], { price: shown([78.5], false) }).price).toMatchObject({
      value: 70.5,
      confidence: 0.9,
    });
  });

  it("reads prices from price specifications and meta tags, and leaves out zero", () => {
    expect(offer([product({ priceSpecification: { price: 19.5 } })]).price).toMatchObject({
      value: 19.5,
      confidence: 0.9,
    });
    expect(offer([], {}, [["product:price:amount", "12.50"]]).price).toMatchObject({ value: 12.5, confidence: 0.9 });
    expect(offer([product({ price: "0" })]).price).toBeUndefined();
    expect(offer([product({ price: "10,75 € 11,95 €" })]).price).toMatchObject({ value: 10.75, confidence: 0.9 });
    expect(offer([], { price: shown([99]) }).price).toMatchObject({ value: 99, confidence: 0.7 });
    expect(offer([], { price: shown([99], false) }).price?.confidence).toBeLessThan(0.6);
  });

  it("is in stock when any offer or variant is, and weighs the buy box against the data", () => {
    const sizes = product([
      { availability: "https://schema.org/OutOfStock" },
      { availability: "https://schema.org/InStock" },
    ]);
    expect(offer([sizes]).inStock).toMatchObject({ value: true, confidence: 0.9 });
    const variants = [
      product({ availability: "OutOfStock" }, { sku: "1" }),
      product({ availability: "InStock" }, { sku: "2" }),
    ];
    expect(offer(variants).inStock?.value).toBe(true);
    expect(offer([product({ availability: "OutOfStock" })]).inStock).toMatchObject({ value: false, confidence: 0.9 });
    expect(
      offer([product({ availability: "InStock" })], { inStock: { value: true, confidence: 0.7 } }).inStock,
    ).toMatchObject({ value: true, confidence: 0.95 });
    expect(
      offer([product({ availability: "InStock" })], { inStock: { value: false, confidence: 0.75 } }).inStock
        ?.confidence,
    ).toBeLessThan(0.6);
  });

  it("takes a shown price with no sold-out word as on offer when the data says nothing about stock", () => {
    expect(offer([], { price: shown([20]) }).inStock).toMatchObject({ value: true, confidence: 0.65 });
    expect(offer([], { price: shown([20], false) }).inStock).toBeUndefined();
  });
});

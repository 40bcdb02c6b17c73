import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { readBuyBox } from "./buy-box.js";

const box = (body: string, headline = "Trail Shoe") => readBuyBox(load(`<html><body>${body}</body></html>`), headline);

describe("readBuyBox", () => {
  it("reads the current price beside the heading, not the struck-through, old or per-unit one", () => {
    const { price } = box(`
      <div class="product">
        <h1>Trail Shoe</h1>
        <div class="prices">
          <del>$149.00</del>
          <span class="price price--old">$139.00</span>
          <span class="price-per-unit">$2.50 / 100 g</span>
          <span class="price">$129.99</span>
        </div>
      </div>`);
    expect(price).toMatchObject({ amounts: [129.99], currency: "USD", named: true });
  });

  it("skips a delivery cost and the prices of other products listed in the block", () => {
    const { price } = box(`
      <main>
        <section><h1>Trail Shoe</h1></section>
        <dl><dt>Delivery</dt><dd class="delivery-price">£3.50</dd></dl>
        <ul>
          <li><a href="/a">Road Shoe</a><span class="tile-price">£80.00</span></li>
          <li><a href="/b">Hill Shoe</a><span class="tile-price">£95.00</span></li>
        </ul>
        <p class="product-price">£120.00</p>
      </main>`);
    expect(price?.amounts[0]).toBe(120);
  });

  it("puts back decimals set apart and keeps the other reading of a grouped number", () => {
    expect(box(`<div><h1>Trail Shoe</h1><p class="price">173<sup>34</sup> Lei</p></div>`).price?.amounts).toEqual([
      173.34,
    ]);
    // "24.990" is 24.99 with a decimal point and 24990 with a thousands dot: structured data may settle which.
    expect(box(`<div><h1>Trail Shoe</h1><p class="price">$24.990</p></div>`).price?.amounts).toEqual([
      24.99, 24990, 24.99,
    ]);
    expect(box(`<div><h1>Trail Shoe</h1><p class="price">€ <span>20,-</span></p></div>`).price?.amounts).toEqual([20]);
    expect(box(`<div><h1>Trail Shoe</h1><span class="x1">From €70.50</span></div>`).price).toMatchObject({
      amounts: [70.5],
      currency: "EUR",
      named: false,
    });
  });

  it("reads a price inside a template's indentation, but not a long text that mentions one", () => {
    const indent = `\n${" ".repeat(200)}`;
    expect(
      box(`<div><h1>Trail Shoe</h1><span class="price">${indent}$12.99${indent}</span></div>`).price?.amounts,
    ).toEqual([12.99]);
    expect(
      box(`<div><h1>Trail Shoe</h1><p class="price-note">Free delivery on all orders over $50.00</p></div>`).price,
    ).toBeUndefined();
  });

  it("finds no price without a heading to anchor the block, or with a number that has no currency", () => {
    expect(box(`<div><p class="price">$12.00</p></div>`).price).toBeUndefined();
    expect(box(`<div><h1>Trail Shoe</h1><p class="price">12 pairs</p></div>`).price).toBeUndefined();
  });

  it("reads stock words of the block, a buy button that can be pressed, and nothing from a disabled one", () => {
    expect(
      box(`<div><h1>Trail Shoe</h1><p class="stock">Sold out</p><button>Add to cart</button></div>`).inStock,
    ).toMatchObject({ value: false, confidence: 0.75 });
    expect(box(`<div><h1>Trail Shoe</h1><span>In stock</span></div>`).inStock?.value).toBe(true);
    expect(box(`<div><h1>Trail Shoe</h1><button type="submit">In den Warenkorb</button></div>`).inStock).toMatchObject({
      value: true,
      confidence: 0.7,
    });
    expect(box(`<div><h1>Trail Shoe</h1><button>Add to your basket</button></div>`).inStock?.value).toBe(true);
    expect(box(`<div><h1>Trail Shoe</h1><button disabled>Add to cart</button></div>`).inStock).toBeUndefined();
    // A wish-list link and the header's cart are no buy buttons.
    expect(
      box(`<header><a href="/cart">Cart</a></header><div><h1>Trail Shoe</h1><a href="#">Add to wishlist</a></div>`)
        .inStock,
    ).toBeUndefined();
  });

  it("ignores stock words that are hidden or speak for one seller of several", () => {
    expect(
      box(`<div><h1>Trail Shoe</h1><div style="display:none"><p>Out of stock</p></div></div>`).inStock,
    ).toBeUndefined();
    const sellers = `<div><h1>Trail Shoe</h1><table>
      <tr class="offer"><td>Shop A</td><td><strong>Out of stock</strong></td></tr>
      <tr class="offer"><td>Shop B</td><td><strong>Ships today</strong></td></tr></table></div>`;
    expect(box(sellers).inStock).toBeUndefined();
    const sizes = `<div><h1>Trail Shoe</h1><ul><li class="size">42</li><li class="size">43 - sold out</li></ul><button>Add to bag</button></div>`;
    expect(box(sizes).inStock).toMatchObject({ value: true, confidence: 0.7 });
    expect(box(`<div><h1>Trail Shoe</h1><button disabled>Sold out</button></div>`).inStock).toMatchObject({
      value: false,
      confidence: 0.75,
    });
    expect(
      box(`<div><h1>Trail Shoe</h1><a class="button" href="/seller/9">Out of stock</a></div>`).inStock,
    ).toBeUndefined();
  });
});

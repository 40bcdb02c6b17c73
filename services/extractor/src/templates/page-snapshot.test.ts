import { parseSchema } from "@winnow/platform";
import type { Element } from "domhandler";
import { describe, expect, it } from "vitest";
import { locatorSchema } from "./locator.js";
import type { PageSnapshot } from "./page-snapshot.js";
import { snapshotOf } from "./templates.test-helpers.js";

const PAGE = `<html><head><title>Lamp</title></head><body>
  <div id="main" class="product card">
    <h1 class="title">Desk Lamp <small>[New]</small></h1>
    <table><tr><th>Price:</th><td><b>Price</b> $19.99</td></tr></table>
    <p class="note">price</p>
    <a class="shop" href="/shop/1" title=" Visit ">Shop</a>
    <button><span class="price">$5</span></button>
  </div>
</body></html>`;

function byText(snapshot: PageSnapshot, text: string): Element {
  return snapshot.elements.find((element) => snapshot.texts.get(element) === text)!;
}

describe("page snapshot", () => {
  const snapshot = snapshotOf(PAGE);

  it("holds each element's text and own text", () => {
    const title = byText(snapshot, "Desk Lamp [New]");
    expect(title.tagName).toBe("h1");
    expect(snapshot.ownTexts.get(title)).toBe("Desk Lamp");
  });

  it("finds the innermost elements of a text by its normalised form, and maps each label to its first showing", () => {
    const shown = snapshot.shownBy.get("price")!.map((element) => element.tagName);
    // "Price:" and "price" normalise alike; the <td> holding "Price $19.99" is no label, the <th> is innermost.
    expect(shown).toEqual(["th", "b", "p"]);
    const [th, b, p] = snapshot.shownBy.get("price")!;
    expect(snapshot.labels.get(b!)).toBe(th);
    expect(snapshot.labels.get(p!)).toBe(th);
    // Of the table's wrappers that show the same text, the row alone is innermost.
    expect(snapshot.shownBy.get("price: price $19.99")!.map((element) => element.tagName)).toEqual(["tr"]);
    // A text longer than a label's is none.
    const main = snapshot.elements.find((element) => element.attribs.id === "main")!;
    expect(snapshot.texts.get(main)!.length).toBeGreaterThan(40);
    expect(snapshot.labels.has(main)).toBe(false);
  });

  it("reads the attributes a value may be held in by the value they hold, links also as absolute addresses", () => {
    const link = byText(snapshot, "Shop");
    const href = { attr: "href", written: "/shop/1", raw: "https://shop.example/shop/1" };
    expect([...snapshot.attributes.get(link)!]).toEqual([
      ["/shop/1", href],
      ["https://shop.example/shop/1", href],
      ["Visit", { attr: "title", written: "Visit", raw: "Visit" }],
    ]);
  });

  it("keeps every element in document order, those in a button too, with the span of what each holds", () => {
    const main = snapshot.elements.find((element) => element.attribs.id === "main")!;
    const inButton = snapshot.tree.find((element) => element.attribs.class === "price")!;
    expect(snapshot.elements).not.toContain(inButton);
    const [start, end] = snapshot.spans.get(main)!;
    const at = snapshot.spans.get(inButton)![0];
    expect(start < at && at < end).toBe(true);
    // The document's root is there too: a label's scope may reach above the body.
    expect(snapshot.tree[0]!.tagName).toBe("html");
  });

  it("names each element by its steps, with and without its id", () => {
    const main = snapshot.elements.find((element) => element.attribs.id === "main")!;
    expect(snapshot.steps.get(main)!.step.css).toBe("div#main.card.product");
    expect(snapshot.steps.get(main)!.relative.css).toBe("div.card.product");
  });

  it("brings the page's records that show an answered list of objects, and what they read", () => {
    const products = parseSchema({ products: [{ name: "string", price_usd: "number" }] }).fields[0]!;
    const value = [
      { name: "Desk Lamp", price_usd: 19.99 },
      { name: "Floor Lamp", price_usd: 89 },
    ];
    const listing = snapshotOf(
      `<html><body><ul class="results">${value.map((p) => `<li class="product"><a class="name">${p.name}</a> <span class="price">$${p.price_usd}</span></li>`).join("")}</ul></body></html>`,
      [{ field: products, value }],
    );
    const [shown] = listing.records.get("products")!;
    expect(shown!.container.attribs.class).toBe("results");
    expect(shown!.reading.items).toBe(":scope > li.product");
    expect(shown!.raw).toEqual([
      { name: "Desk Lamp", price_usd: "19.99" },
      { name: "Floor Lamp", price_usd: "89" },
    ]);
  });

  it("reads what each stored locator reads on the page, in its field's type; null where it reads nothing", () => {
    const price = parseSchema({ price_usd: "number" }).fields[0]!;
    const shown = locatorSchema.parse({ path: "span.price", index: 0 });
    const missing = locatorSchema.parse({ path: "span.discount", index: 0 });
    const { readings } = snapshotOf(
      PAGE,
      [],
      [
        { field: price, locator: shown },
        { field: price, locator: missing },
      ],
    );
    expect(readings.get(shown)).toBe(5);
    expect(readings.get(missing)).toBeNull();
  });

  it("reads a page without a body as empty", () => {
    const empty = snapshotOf("<html><frameset></frameset></html>");
    expect(empty.elements).toEqual([]);
    expect(empty.shownBy.size).toBe(0);
  });
});

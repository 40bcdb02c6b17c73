import { createLogger, parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../page/page.js";
import { PageIndex } from "../page/page-index.js";
import { TemplateLearner } from "./learner.js";
import { applyLocator } from "./locator.js";
import { pageLayout } from "./signature.js";
import { MemoryTemplateStore } from "./store.js";
import { locatorsOn } from "./templates.test-helpers.js";
import { agrees, readAs } from "./values.js";

interface Product {
  name: string;
  price: string;
  offers?: number;
  ad?: boolean;
  tags?: string[];
}

/**
 * A shop's search page: a grid of product cards, an ad among them in an extra wrapper with its marker, prices
 * followed by an offer count on some cards, a pager the card selector must not read as a record.
 */
function searchPage(products: Product[]): string {
  const card = (p: Product) => {
    const body = `<h3 class="name"><a href="/p/${encodeURIComponent(p.name)}">${p.name}</a></h3>
      <div class="price">${p.price}${p.offers ? ` <a href="/offers">(${p.offers} offers)</a>` : ""}</div>
      <ul class="tags">${(p.tags ?? []).map((t) => `<li>${t}</li>`).join("")}</ul>`;
    return p.ad
      ? `<div class="card"><span class="ad-label">Sponsored</span><div class="ad-body">${body}</div></div>`
      : `<div class="card">${body}</div>`;
  };
  return `<html><body><header><a href="/">Shop</a> <a href="/help">Help</a></header>
    <main><h1>Results</h1><div class="grid">${products.map(card).join("")}
    <div class="card"><a href="/page/2">Next page</a></div></div></main>
    <footer>© Shop</footer></body></html>`;
}

const SCHEMA = parseSchema({
  products: [{ name: "string", price_usd: "number", url: "string", sponsored: "boolean", tags: ["string"] }],
});
const PRODUCTS = SCHEMA.fields[0]!;

function indexOf(html: string, url = "https://shop.example/search?q=lamp"): PageIndex {
  const page = loadPage(html, url);
  return new PageIndex(page.$, page.baseUrl);
}

/** What a model reads on the page: each product's fields. */
function truth(products: Product[]) {
  return products.map((p) => ({
    name: p.name,
    price_usd: Number(p.price.replace(/[^\d.]/g, "")),
    url: `https://shop.example/p/${encodeURIComponent(p.name)}`,
    sponsored: p.ad ?? false,
    tags: p.tags && p.tags.length > 0 ? p.tags : null,
  }));
}

const FIRST: Product[] = [
  { name: "Desk Lamp", price: "$19.99", tags: ["led", "desk"] },
  { name: "Floor Lamp", price: "$89.00", offers: 3, tags: ["floor"] },
  { name: "Lamp Shade", price: "$12.50", ad: true, tags: ["shade"] },
  { name: "Clip Lamp", price: "$9.50", tags: ["clip", "led"] },
  { name: "Wall Lamp", price: "$45.00", offers: 2, tags: ["wall"] },
];
const SECOND: Product[] = [
  { name: "Lava Lamp", price: "$30.00", ad: true, tags: ["retro"] },
  { name: "Reading Lamp", price: "$24.00", tags: ["desk"] },
  { name: "Arc Lamp", price: "$199.00", offers: 5, tags: ["floor", "arc"] },
  { name: "Night Light", price: "$7.25", tags: ["kids"] },
];
const THIRD: Product[] = [
  { name: "Piano Lamp", price: "$59.00", tags: ["desk"] },
  { name: "Torch Lamp", price: "$1,099.00", offers: 4, tags: ["floor"] },
  { name: "Salt Lamp", price: "$15.00", ad: true, tags: ["decor"] },
  { name: "Bulb Pack", price: "$6.00", tags: ["led"] },
  { name: "Desk Lamp XL", price: "$29.00", tags: ["desk", "xl"] },
  { name: "Pendant", price: "$75.00", offers: 2, tags: ["ceiling"] },
];

describe("list templates", () => {
  it("learn the page's list: its records, and each field's column in every make-up of record", () => {
    const [locator] = locatorsOn(indexOf(searchPage(FIRST)), PRODUCTS, truth(FIRST));
    expect(locator).toMatchObject({ path: "div.grid", items: ":scope > div.card" });
    // Another page of the layout, with a different number of records, ads and offers elsewhere: read exactly.
    const next = applyLocator(indexOf(searchPage(THIRD)), locator!);
    expect(readAs(PRODUCTS, next!.raw)).toEqual(truth(THIRD));
  });

  it("pair the model's records with the page's even where the model skipped one", () => {
    const read = truth(FIRST).filter((product) => !product.sponsored);
    const [locator] = locatorsOn(indexOf(searchPage(FIRST)), PRODUCTS, read);
    expect(locator?.items).toBe(":scope > div.card");
  });

  it("read a rating only a class states, an availability every record says alike, and a date amid varying words", () => {
    type Row = { title: string; stars: number; posted: string; by: string };
    const WORDS = ["Zero", "One", "Two", "Three", "Four", "Five"];
    const shelf = (rows: Row[]) =>
      indexOf(
        `<html><body><ol class="books">${rows.map((r) => `<li class="book"><h3><a href="/b">${r.title}</a></h3><p class="star-rating ${WORDS[r.stars]}"><i></i></p><p class="availability">In stock</p><span class="last">${r.posted}<br><a href="/u">${r.by}</a></span></li>`).join("")}</ol></body></html>`,
        "https://books.example/page-1",
      );
    const field = parseSchema({
      books: [{ title: "string", rating: "integer", in_stock: "boolean", last_post: "string" }],
    }).fields[0]!;
    const truthOf = (rows: Row[]) =>
      rows.map((r) => ({ title: r.title, rating: r.stars, in_stock: true, last_post: r.posted }));
    const first: Row[] = [
      { title: "Dune", stars: 3, posted: "Mon Dec 04, 2006 5:46 am", by: "kim" },
      { title: "Emma", stars: 1, posted: "Sat Oct 08, 2005 11:49 am", by: "ana" },
      { title: "Ulysses", stars: 5, posted: "Wed Oct 05, 2005 10:16 am", by: "bo" },
    ];
    const [locator] = locatorsOn(shelf(first), field, truthOf(first));
    expect(locator?.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "rating", classNumber: true }),
        expect.objectContaining({ name: "last_post", pattern: expect.any(String) }),
      ]),
    );
    // The rating's class names content: it is no step of the column's path.
    expect(locator?.fields?.find((f) => f.name === "rating")?.path).not.toMatch(/Three|One|Five/);
    const second: Row[] = [
      { title: "Persuasion", stars: 4, posted: "Fri Jun 19, 2009 5:10 pm", by: "mattgpx" },
      { title: "Beloved", stars: 2, posted: "Tue Jan 02, 2007 9:03 pm", by: "trakspekce" },
    ];
    expect(readAs(field, applyLocator(shelf(second), locator!)!.raw)).toEqual(truthOf(second));
  });

  it("read numbers written with a decimal comma on a page that writes them so", () => {
    const european = (rows: [string, string][]) =>
      indexOf(
        `<html><body><table class="ranks">${rows.map(([name, count]) => `<tr class="row"><td class="n">${name}</td><td class="c">${count} Bewertungen</td></tr>`).join("")}</table></body></html>`,
        "https://shop.example/top",
      );
    const field = parseSchema({ items: [{ name: "string", review_count: "integer" }] }).fields[0]!;
    const [locator] = locatorsOn(
      european([
        ["Echo", "92.284"],
        ["Stick", "1.558"],
        ["Kindle", "576"],
      ]),
      field,
      [
        { name: "Echo", review_count: 92284 },
        { name: "Stick", review_count: 1558 },
        { name: "Kindle", review_count: 576 },
      ],
    );
    const next = applyLocator(
      european([
        ["Fire", "46.382"],
        ["Dot", "12"],
      ]),
      locator!,
    );
    expect(readAs(field, next!.raw)).toEqual([
      { name: "Fire", review_count: 46382 },
      { name: "Dot", review_count: 12 },
    ]);
  });

  it("read a record's fields from the row that follows its head (a title row and a details row)", () => {
    const table = (rows: [string, number, string][]) =>
      indexOf(
        `<html><body><table class="items"><tbody>${rows.map(([title, points, by]) => `<tr class="athing"><td class="title"><a href="/s">${title}</a></td></tr><tr><td class="sub"><span class="score">${points} points</span> by <a class="user">${by}</a></td></tr>`).join("")}</tbody></table></body></html>`,
        "https://news.example/",
      );
    const field = parseSchema({ stories: [{ title: "string", points: "integer", author: "string" }] }).fields[0]!;
    const first: [string, number, string][] = [
      ["Show: a parser", 120, "kim"],
      ["Ask: on lists", 45, "ana"],
      ["A long read", 300, "bo"],
    ];
    const [locator] = locatorsOn(
      table(first),
      field,
      first.map(([title, points, author]) => ({ title, points, author })),
    );
    expect(locator?.fields).toContainEqual(expect.objectContaining({ name: "points", part: 1 }));
    const next = applyLocator(
      table([
        ["New: a tool", 7, "sam"],
        ["Old: a paper", 81, "lee"],
      ]),
      locator!,
    );
    expect(readAs(field, next!.raw)).toEqual([
      { title: "New: a tool", points: 7, author: "sam" },
      { title: "Old: a paper", points: 81, author: "lee" },
    ]);
  });

  it("find no locator where the page shows no list of the model's records", () => {
    const page = indexOf(`<html><body><h1>Lamps</h1><p>Desk Lamp for $19.99, and more.</p></body></html>`);
    expect(locatorsOn(page, PRODUCTS, truth(FIRST))).toEqual([]);
  });
});

describe("list agreement", () => {
  const records = Array.from({ length: 20 }, (_, i) => ({ name: `Lamp ${i}`, price: i }));

  it("holds a reading that misses or adds a record of a long list as agreeing, not one that differs more", () => {
    expect(agrees(records.slice(1), records)).toBe(true);
    expect(agrees([...records, { name: "Extra", price: 1 }], records)).toBe(true);
    expect(agrees(records.slice(5), records)).toBe(false);
    expect(
      agrees(
        records.map((r, i) => (i < 3 ? { ...r, price: r.price + 1 } : r)),
        records,
      ),
    ).toBe(false);
  });

  it("compares anything else exactly", () => {
    expect(agrees(["a", "b"], ["a"])).toBe(false);
    expect(agrees(12.5, 12.5)).toBe(true);
  });
});

describe("list template learning", () => {
  it("answers every record of a listing page without the model after the model read two pages of its layout", async () => {
    const learner = new TemplateLearner(
      new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }),
      createLogger("test", "silent"),
    );
    const visit = async (products: Product[], url: string, read: boolean) => {
      const page = loadPage(searchPage(products), url);
      const layout = pageLayout(page.$, page.url)!;
      const key = (await learner.templateFor(layout))!;
      const index = new PageIndex(page.$, page.baseUrl);
      const answers = await learner.answer(key, SCHEMA, index, false);
      if (read) await learner.learn(key, layout, SCHEMA, index, { products: truth(products) }, url);
      return answers;
    };
    expect((await visit(FIRST, "https://shop.example/search?q=lamp", true)).size).toBe(0);
    expect((await visit(SECOND, "https://shop.example/search?q=light", true)).size).toBe(0);
    const third = await visit(THIRD, "https://shop.example/search?q=bulb", false);
    expect(third.get("products")?.value).toEqual(truth(THIRD));
    expect(third.get("products")?.locator).toMatch(/^div\.grid\[0\] items :scope > div\.card/);
  });
});

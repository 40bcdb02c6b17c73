import { createLogger, type ObjectNode, parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../page/page.js";
import { PageIndex } from "../page/page-index.js";
import { TemplateLearner } from "./learner.js";
import { applyLocator, locatorSchema } from "./locator.js";
import { pageLayout, templateOf } from "./signature.js";
import { type LocatorRecord, MemoryTemplateStore, type TemplateStore } from "./store.js";
import { locatorsOn } from "./templates.test-helpers.js";
import { readAs } from "./values.js";

const logger = createLogger("test", "silent");
const TENANT = "acct-a";

/** A product page of one shop's layout; the content varies, the frame does not. */
function productPage(product: {
  name: string;
  price: string;
  isbn: string;
  authors: string[];
  extra?: string;
}): string {
  return `<html><body>
    <div id="header"><a href="/">Shop</a><ul class="menu"><li>Books</li><li>Music</li></ul></div>
    <div class="main">
      <h1 class="product-title">${product.name}</h1>
      ${product.extra ?? ""}
      <div class="buy"><span class="price">${product.price}</span></div>
      <table class="details">
        <tr><th>Publisher</th><td>Acme Press</td></tr>
        <tr><th>ISBN-13:</th><td>${product.isbn}</td></tr>
      </table>
      <p class="byline"><b>By:</b> ${product.authors.map((a) => `<a href="/a">${a}</a>`).join(", ")}</p>
      <ul class="facts"><li><b>Pages:</b> 320</li></ul>
    </div>
    <div id="footer">© Shop</div>
  </body></html>`;
}

const PAGES = [
  { name: "The Long Road", price: "$12.50", isbn: "978-0307269997", authors: ["Kim Lee"] },
  { name: "Short Stories", price: "$8.00", isbn: "978-0345504968", authors: ["Ana Ruiz", "Bo Chen"] },
  {
    name: "A Third Book",
    price: "$1,099.99",
    isbn: "978-0000000002",
    authors: ["Sam Poe"],
    extra: `<p class="badge">Bestseller</p>`,
  },
];
const TREE = parseSchema({
  title: "string",
  price_usd: "number",
  isbn_13: "string",
  authors: ["string"],
  pages: "integer",
  edition: "string",
});

function indexOf(html: string, url = "https://shop.example/p/1"): PageIndex {
  const page = loadPage(html, url);
  return new PageIndex(page.$, page.baseUrl);
}

function fieldOf(tree: ObjectNode, name: string) {
  return tree.fields.find((field) => field.name === name)!;
}

describe("locator derivation", () => {
  const index = indexOf(productPage(PAGES[0]!));

  it.each([
    ["title", "The Long Road"],
    ["price_usd", 12.5],
    ["isbn_13", "978-0307269997"],
    ["authors", ["Kim Lee"]],
    ["pages", 320],
  ])("finds %s again on the page it came from", (name, value) => {
    const field = fieldOf(TREE, name);
    const locators = locatorsOn(index, field, value);
    expect(locators.length).toBeGreaterThan(0);
    for (const locator of locators) expect(readAs(field, applyLocator(index, locator)!.raw)).toEqual(value);
  });

  it("describes elements by stable names and labels, never by a chain of positions", () => {
    const byPath = locatorsOn(index, fieldOf(TREE, "title"), "The Long Road");
    expect(byPath[0]).toMatchObject({ path: "h1.product-title", index: 0 });
    const byLabel = locatorsOn(index, fieldOf(TREE, "isbn_13"), "978-0307269997");
    expect(byLabel).toContainEqual(expect.objectContaining({ label: "ISBN-13:", path: "td" }));
    // The value shares its element with its label: the label is cut off as a constant prefix.
    const pages = locatorsOn(index, fieldOf(TREE, "pages"), 320);
    expect(pages).toContainEqual(expect.objectContaining({ label: "Pages:", prefix: "Pages: " }));
    for (const locator of [...byPath, ...byLabel, ...pages]) expect(locator.path).not.toMatch(/nth|:eq|^(\w+ > )+\w+$/);
  });

  it("reads links from attributes and lists item by item", () => {
    const page = indexOf(
      `<html><body><div class="site"><a class="web" href="/home">Visit</a></div><div class="genres"><a>Crime</a> | <a>Drama</a></div></body></html>`,
      "https://u.example/x",
    );
    const website = parseSchema({ website: "string" }).fields[0]!;
    expect(locatorsOn(page, website, "https://u.example/home")).toContainEqual(
      expect.objectContaining({ path: "a.web", attr: "href" }),
    );
    const genres = parseSchema({ genres: ["string"] }).fields[0]!;
    const list = locatorsOn(page, genres, ["Crime", "Drama"]);
    expect(list[0]).toMatchObject({ path: "div.genres", items: "a" });
  });

  it("reads an element's own text where child elements add text that varies, and numbers around a value as any number", () => {
    const title = parseSchema({ title: "string" }).fields[0]!;
    const hardcover = indexOf(
      `<html><body><h1 class="t">Pulp Fiction <small>[Hardcover]</small></h1><h2 class="y">Se7en (1995)</h2></body></html>`,
    );
    const paperback = indexOf(
      `<html><body><h1 class="t">Heat <small>[Paperback]</small></h1><h2 class="y">Alien (1979)</h2></body></html>`,
    );
    const own = locatorsOn(hardcover, title, "Pulp Fiction").find((locator) => locator.own)!;
    expect(readAs(title, applyLocator(paperback, own)!.raw)).toBe("Heat");
    const year = locatorsOn(hardcover, title, "Se7en").find((locator) => locator.suffix === " (1995)")!;
    expect(readAs(title, applyLocator(paperback, year)!.raw)).toBe("Alien");
  });

  it("finds a list of objects as repeated items with a locator per field inside each", () => {
    const listing = (items: [string, string][]) =>
      indexOf(
        `<html><body><h1>Lamps</h1><ul class="results">${items.map(([name, price]) => `<li class="product"><a class="title" href="/p">${name}</a> <span class="price">Now ${price}</span></li>`).join("")}</ul></body></html>`,
      );
    const products = parseSchema({ products: [{ name: "string", price_usd: "number" }] }).fields[0]!;
    const first = listing([
      ["Desk Lamp", "$19.99"],
      ["Floor Lamp", "$89.00"],
    ]);
    const locators = locatorsOn(first, products, [
      { name: "Desk Lamp", price_usd: 19.99 },
      { name: "Floor Lamp", price_usd: 89 },
    ]);
    expect(locators[0]).toMatchObject({
      path: "ul.results",
      items: ":scope > li.product",
      fields: [
        { name: "name", path: ":scope > a.title", index: 0 },
        { name: "price_usd", path: ":scope > span.price", index: 0, prefix: "Now $" },
      ],
    });
    const next = listing([
      ["Clip Lamp", "$9.50"],
      ["Wall Lamp", "$45.00"],
      ["Lava Lamp", "$30.00"],
    ]);
    expect(readAs(products, applyLocator(next, locators[0]!)!.raw)).toEqual([
      { name: "Clip Lamp", price_usd: 9.5 },
      { name: "Wall Lamp", price_usd: 45 },
      { name: "Lava Lamp", price_usd: 30 },
    ]);
  });

  it("copes with tags CSS cannot name and finds the value by what it can", () => {
    const page = indexOf(
      `<html><body><fb:box class="social"><o:p>Kim Lee</o:p></fb:box><span class="name">Kim Lee</span></body></html>`,
    );
    const author = parseSchema({ author: "string" }).fields[0]!;
    const locators = locatorsOn(page, author, "Kim Lee");
    expect(locators.length).toBeGreaterThan(0);
    for (const locator of locators) expect(readAs(author, applyLocator(page, locator)!.raw)).toBe("Kim Lee");
  });

  it("answers a date field only with a date it can read as ISO 8601", () => {
    const posted = parseSchema({ posted_iso8601: "string" }).fields[0]!;
    const page = (date: string) =>
      indexOf(`<html><body><dl class="job"><dt>Date:</dt><dd>${date}</dd></dl></body></html>`);
    const locator = locatorsOn(page("11-23-2010"), posted, "2010-11-23")[0]!;
    expect(readAs(posted, applyLocator(page("11-30-2010"), locator)!.raw)).toBe("2010-11-30");
    // Day and month both up to 12: the text does not say which is which, so the template does not answer.
    expect(readAs(posted, applyLocator(page("12-6-2010"), locator)!.raw)).toBeNull();
  });

  it("reads a date amid words that vary from page to page by the date's shape", () => {
    const posted = parseSchema({ first_post_time: "string" }).fields[0]!;
    const topic = (date: string, subject: string) =>
      indexOf(
        `<html><body><table class="post"><tr><td><span class="details">Posted: ${date}&nbsp; &nbsp;Post subject: ${subject}</span></td></tr></table></body></html>`,
      );
    const locators = locatorsOn(
      topic("Thu Nov 09, 2006 8:58 pm", "Forum registration is now admin-activated for every new member"),
      posted,
      "Thu Nov 09, 2006 8:58 pm",
    );
    const shaped = locators.find((locator) => locator.pattern !== undefined);
    expect(shaped).toBeDefined();
    expect(readAs(posted, applyLocator(topic("Sat Oct 08, 2005 11:49 am", "WTB: seats 2"), shaped!)!.raw)).toBe(
      "Sat Oct 08, 2005 11:49 am",
    );
    // A stored pattern is a shape to match and nothing else.
    expect(locatorSchema.safeParse({ ...shaped, pattern: "(a+)+$" }).success).toBe(false);
  });

  it("finds nothing for a value the page does not show", () => {
    expect(locatorsOn(index, fieldOf(TREE, "title"), "Not On The Page")).toEqual([]);
  });
});

describe("template keys", () => {
  const layoutOf = (html: string, url: string) => pageLayout(loadPage(html, url).$, new URL(url), TENANT)!;

  it("are the same for pages of one layout and differ across layouts and hosts", () => {
    const first = layoutOf(productPage(PAGES[0]!), "https://shop.example/p/1");
    const known = [{ signature: templateOf(first, []).signature, paths: first.paths, pages: 1 }];
    for (const page of PAGES.slice(1))
      expect(templateOf(layoutOf(productPage(page), "https://shop.example/p/2"), known)).toMatchObject({
        signature: known[0]!.signature,
        pages: 1,
      });
    const listing = layoutOf(
      `<html><body><div id="grid">${"<div class='card'><a>x</a><span class='price'>$1</span></div>".repeat(20)}</div><nav class="pages"><a>2</a></nav></body></html>`,
      "https://shop.example/list",
    );
    expect(templateOf(listing, known)).toMatchObject({
      pages: 0,
      signature: expect.not.stringMatching(known[0]!.signature),
    });
    expect(layoutOf(productPage(PAGES[0]!), "https://other.example/p/1").host).toBe("other.example");
  });
});

describe("learning", () => {
  const truths = PAGES.map((p) => ({
    title: p.name,
    price_usd: Number(p.price.replace(/[$,]/g, "")),
    isbn_13: p.isbn,
    authors: p.authors,
    pages: 320,
  }));

  async function teach(
    learner: TemplateLearner,
    html: string,
    url: string,
    values: Record<string, unknown>,
    tenant = TENANT,
  ) {
    const page = loadPage(html, url);
    const layout = pageLayout(page.$, page.url, tenant)!;
    const key = (await learner.templateFor(layout))!;
    const answers = await learner.answer(key, TREE, new PageIndex(page.$, page.baseUrl), true);
    await learner.learn(key, layout, TREE, new PageIndex(page.$, page.baseUrl), values, url);
    return answers;
  }

  it("trusts a locator after two agreeing pages, and answers the third page exactly", async () => {
    const learner = new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger);
    expect((await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", truths[0]!)).size).toBe(0);
    expect((await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/2", truths[1]!)).size).toBe(0);
    const third = await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/3", {});
    expect(Object.fromEntries([...third].map(([name, answer]) => [name, answer.value]))).toEqual(truths[2]);
    expect(third.get("title")).toMatchObject({
      selector: expect.stringContaining("h1"),
      locator: "h1.product-title[0]",
      text: "A Third Book",
      confidence: expect.any(Number),
    });
    // The selector is the element's, as evidence gives one: it finds the element on the page.
    const page = loadPage(productPage(PAGES[2]!), "https://shop.example/p/3");
    expect(page.$(third.get("title")!.selector).text()).toBe("A Third Book");
  });

  it("looks for a value no element showed on three pages in a row only on every tenth page after", async () => {
    const store = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
    const learner = new TemplateLearner(store, logger);
    // The value only structured data states: no element of these pages shows it.
    const isbn = "978-9999999999";
    for (const i of [0, 1, 2])
      await teach(learner, productPage(PAGES[0]!), `https://shop.example/p/${i}`, { isbn_13: isbn });
    const shown = productPage({ ...PAGES[0]!, isbn });
    const isbnLocators = async () => {
      const page = loadPage(shown, "https://shop.example/p/0");
      const key = (await learner.templateFor(pageLayout(page.$, page.url, TENANT)!))!;
      return (await store.locators(key)).filter((record) => record.field === "isbn_13:string");
    };
    for (let page = 3; page < 10; page += 1)
      await teach(learner, shown, `https://shop.example/shown/${page}`, { isbn_13: isbn });
    expect(await isbnLocators()).toEqual([]);
    await teach(learner, shown, "https://shop.example/shown/10", { isbn_13: isbn });
    expect(await isbnLocators()).toContainEqual(
      expect.objectContaining({ agree: 1, locator: expect.objectContaining({ label: "ISBN-13:" }) }),
    );
  });

  it("counts a page read again as one page: the same page twice trusts nothing", async () => {
    const learner = new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger);
    for (let i = 0; i < 3; i += 1) await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", truths[0]!);
    expect((await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/2", {})).size).toBe(0);
  });

  it("holds a field absent after three pages the model read whole without it, re-checks it every fifth page, and drops it once shown", async () => {
    const learner = new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger);
    for (const i of [0, 1, 2])
      expect(
        (await teach(learner, productPage(PAGES[i]!), `https://shop.example/p/${i}`, { edition: null })).has("edition"),
      ).toBe(false);
    expect((await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/3", {})).get("edition")).toMatchObject(
      { value: null, selector: "", locator: "absent" },
    );
    // The template's fifth page asks again.
    expect(
      (await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/4", { edition: "2nd" })).has("edition"),
    ).toBe(false);
    expect((await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/5", {})).has("edition")).toBe(false);
  });

  it("answers nothing on every twentieth page of a template, so the engines' reading checks its trusted locators", async () => {
    const learner = new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger);
    await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/5", truths[0]!);
    await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/6", truths[1]!);
    for (let page = 3; page < 20; page += 1)
      expect((await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/7", {})).get("isbn_13")?.value).toBe(
        truths[2]!.isbn_13,
      );
    // The twentieth page is read by the engines; a site that now shows another number there demotes the locators.
    const changed = productPage({ ...PAGES[2]!, isbn: "978-1111111111" });
    expect((await teach(learner, changed, "https://shop.example/p/8", { isbn_13: "978-2222222222" })).size).toBe(0);
    expect((await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/9", {})).has("isbn_13")).toBe(false);
  });

  it("never applies one host's locators to another host", async () => {
    const learner = new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger);
    await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", truths[0]!);
    await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/2", truths[1]!);
    expect((await teach(learner, productPage(PAGES[2]!), "https://copycat.example/p/3", {})).size).toBe(0);
  });

  it("never applies one account's locators to another account's pages of the same layout", async () => {
    const learner = new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger);
    await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", truths[0]!);
    await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/2", truths[1]!);
    expect((await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/3", {}, "acct-b")).size).toBe(0);
    expect((await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/3", {})).size).toBeGreaterThan(0);
  });

  it("demotes a locator that disagrees, and one bad page cannot make a wrong locator trusted", async () => {
    const store = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
    const learner = new TemplateLearner(store, logger);
    // A wrong teacher on one page: "Acme Press" as the title.
    await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", { ...truths[0]!, title: "Acme Press" });
    await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/2", truths[1]!);
    const third = await teach(learner, productPage(PAGES[2]!), "https://shop.example/p/3", {});
    expect(third.has("title")).toBe(false);
    expect(third.get("isbn_13")?.value).toBe(truths[2]!.isbn_13);
    // A page whose confident value differs from what the trusted locators read demotes them.
    const changed = productPage({ ...PAGES[2]!, isbn: "978-1111111111" });
    await teach(learner, changed, "https://shop.example/p/4", { isbn_13: "978-2222222222" });
    expect((await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", {})).has("isbn_13")).toBe(false);
  });

  it("skips records a corrupted store returns, and answers without templates when the store fails", async () => {
    const good = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
    const learner = new TemplateLearner(good, logger);
    await teach(learner, productPage(PAGES[0]!), "https://shop.example/p/1", truths[0]!);
    await teach(learner, productPage(PAGES[1]!), "https://shop.example/p/2", truths[1]!);
    const corrupted: TemplateStore = {
      templates: (site) => good.templates(site),
      use: (key) => good.use(key),
      locators: async (key) => [
        ...(await good.locators(key)),
        { field: "title:string", locator: { path: 42 }, agree: 9, disagree: 0 } as unknown as LocatorRecord,
        { field: "pages:integer", locator: { path: "h1.product-title", index: 0 }, agree: Number.NaN, disagree: 0 },
      ],
      record: async () => {},
      list: async () => [],
      forget: async () => 0,
      close: async () => {},
    };
    const third = await teach(
      new TemplateLearner(corrupted, logger),
      productPage(PAGES[2]!),
      "https://shop.example/p/3",
      {},
    );
    expect(third.get("title")?.value).toBe("A Third Book");
    expect(third.get("pages")?.value).toBe(320);
    const failing: TemplateStore = { ...corrupted, templates: () => Promise.reject(new Error("down")) };
    const page = loadPage(productPage(PAGES[2]!), "https://shop.example/p/3");
    expect(
      await new TemplateLearner(failing, logger).templateFor(pageLayout(page.$, page.url, TENANT)!),
    ).toBeUndefined();
  });

  it("keeps the store bounded: templates per host, least recently used first out", async () => {
    const store = new MemoryTemplateStore({ templatesPerHost: 2, templates: 3 });
    for (const [i, host] of ["a.example", "a.example", "a.example", "b.example", "c.example"].entries()) {
      await store.record({ tenant: TENANT, host, signature: `s${i}` }, [`p${i}`], []);
    }
    // a.example kept its two newest; the fifth template overflowed the store and took the oldest of all.
    expect((await store.list("a.example")).map((t) => t.signature)).toEqual(["s2"]);
    expect((await store.templates({ tenant: TENANT, host: "b.example" })).map((t) => t.signature)).toEqual(["s3"]);
    expect(await store.forget("c.example")).toBe(1);
    expect(await store.templates({ tenant: TENANT, host: "c.example" })).toEqual([]);
  });

  it("bounds templates per account and host: one account's learning does not push out another's", async () => {
    const store = new MemoryTemplateStore({ templatesPerHost: 2, templates: 50 });
    await store.record({ tenant: "acct-b", host: "a.example", signature: "b0" }, ["p"], []);
    for (const i of [0, 1, 2]) await store.record({ tenant: TENANT, host: "a.example", signature: `s${i}` }, ["p"], []);
    expect((await store.templates({ tenant: "acct-b", host: "a.example" })).map((t) => t.signature)).toEqual(["b0"]);
    expect((await store.templates({ tenant: TENANT, host: "a.example" })).map((t) => t.signature).sort()).toEqual([
      "s1",
      "s2",
    ]);
    expect(await store.forget("a.example", "acct-b")).toBe(1);
    expect((await store.list("a.example")).map((t) => t.tenant)).toEqual([TENANT, TENANT]);
  });
});

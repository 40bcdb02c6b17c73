import { describe, expect, it } from "vitest";
import type { ChatRequestBody } from "../../../../test/support/fake-llm.js";
import { extract } from "./extraction.test-helpers.js";

const SHOP = `<html><head><title>Ridgeline Kettle | Shop</title>
  <meta name="description" content="A stovetop kettle in brushed steel, the shop's best seller.">
  <script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Recipe", name: "Kettle Tea", totalTime: "PT45M", recipeYield: "4" })}</script>
  </head><body>
  <h1>Ridgeline Kettle</h1>
  <table class="specs"><tr><th>Material</th><td>Brushed steel</td></tr><tr><th>Capacity</th><td>1.7 litres</td></tr></table>
  <p>Boils fast on any stove.</p>
</body></html>`;

/** A product page whose name and price are in JSON-LD, with a review. */
const product = (price: string, currency: string) => `<html><head><title>Ridgeline Kettle | Shop</title>
  <script type="application/ld+json">${JSON.stringify({
    "@context": "https://schema.org",
    "@type": "Product",
    name: "Ridgeline Kettle",
    offers: { "@type": "Offer", price, priceCurrency: currency },
  })}</script></head><body>
  <h1>Ridgeline Kettle</h1>
  <h2>Reviews</h2><p>Boils fast on any stove, and the handle stays cool.</p>
</body></html>`;

describe("field status, builtin engine", () => {
  it("found: a value the page shows where it was read; unverified: one it does not show; absent: a concept it never names", async () => {
    const { data, status, response } = await extract(SHOP, {
      servings: "integer",
      material: "string",
      title: "string",
      total_time_minutes: "integer",
      warranty: "string",
    });
    expect(data.title).toBe("Kettle Tea");
    expect(status).toEqual({
      // JSON-LD says "Kettle Tea", 4 servings and 45 minutes; the page a reader sees says none of them.
      "/servings": "unverified",
      "/total_time_minutes": "unverified",
      "/title": "unverified",
      // The spec table's cell shows its value.
      "/material": "found",
      // Nothing on the page names a warranty.
      "/warranty": "absent",
    });
    expect(response.evidence.find((e) => e.pointer === "/material")).toMatchObject({
      grounded: true,
      status: "found",
    });
    expect(response.evidence.find((e) => e.pointer === "/servings")).toMatchObject({
      grounded: false,
      status: "unverified",
    });
  });

  it("not-found, never absent, where a JSON Schema's enum dropped what was read; unverified where a value is not in its format", async () => {
    const rule = (values: unknown[], format = "") => ({ allowedJson: values.map((v) => JSON.stringify(v)), format });
    const { data, status, codes } = await extract(
      SHOP,
      { servings: "integer", warranty: "string", material: "string" },
      { rules: { "/servings": rule([2, 6]), "/warranty": rule(["1 year", "2 years"]), "/material": rule([], "date") } },
    );
    expect(data).toEqual({ servings: null, warranty: null, material: "Brushed steel" });
    expect(status).toEqual({
      // JSON-LD states 4 servings, which the enum does not allow; the page names servings nowhere, yet it is not absent.
      "/servings": "not-found",
      "/warranty": "absent",
      "/material": "unverified",
    });
    expect(codes).toEqual(expect.arrayContaining(["dropped-value /servings", "format-unmet /material"]));
  });

  it("found or derived for structured data the visible page states too; derived where the name asks a conversion", async () => {
    const shown = SHOP.replace("<p>Boils fast", "<p>Serves 4</p><p>Ready in 45 minutes</p><p>Boils fast");
    const { status } = await extract(shown, { servings: "integer", total_time_minutes: "integer" });
    expect(status).toEqual({ "/servings": "found", "/total_time_minutes": "derived" });
  });

  it("not-found, not absent, for a null whose concept the page names but no engine read", async () => {
    const named = SHOP.replace("<p>Boils fast", "<p>Ask us about the warranty when you order.</p><p>Boils fast");
    const { data, status } = await extract(named, {
      warranty: "string",
      author: "string",
      brand: "string",
      sku: "string",
    });
    expect(data).toEqual({ warranty: null, author: null, brand: null, sku: null });
    // An author and a brand are stated without naming them (a byline, "by Northpeak"): their nulls prove nothing
    // either. A SKU is labelled where a page states one, and nothing here names one.
    expect(status).toEqual({
      "/warranty": "not-found",
      "/author": "not-found",
      "/brand": "not-found",
      "/sku": "absent",
    });
  });

  it("answers the README's task: the fields it asks to produce need a model, the product's name is read", async () => {
    const { data, status, codes } = await extract(
      product("49.50", "USD"),
      { product_name: "string", summary: "string", sentiment: "string", product_name_fr: "string" },
      {
        task: "Summarise the reviews in one sentence. Sentiment is one of: positive, neutral, negative. Translate the product name into French as product_name_fr.",
      },
    );
    expect(data).toEqual({ product_name: "Ridgeline Kettle", summary: null, sentiment: null, product_name_fr: null });
    expect(status).toMatchObject({
      "/summary": "needs-model",
      "/sentiment": "needs-model",
      "/product_name_fr": "needs-model",
    });
    expect(status["/product_name"]).not.toBe("needs-model");
    expect(codes).not.toContain("needs-model /product_name");
  });

  it("reads a field whose name only shares the task's object: the product's name is no summary", async () => {
    const { status, codes } = await extract(
      SHOP,
      { product_name: "string", product_summary: "string" },
      { task: "Summarize the product in one sentence." },
    );
    expect(status["/product_name"]).not.toBe("needs-model");
    expect(codes).not.toContain("needs-model /product_name");
    expect(status["/product_summary"]).toBe("needs-model");
  });

  it("keeps the prices of the clients' task, which asks for a currency the page states", async () => {
    const { data, status, codes } = await extract(
      product("49.50", "USD"),
      { price_usd: "number", price: "number" },
      { task: "Prices in US dollars." },
    );
    expect(data).toEqual({ price_usd: 49.5, price: 49.5 });
    expect(status["/price_usd"]).not.toBe("needs-model");
    expect(codes.filter((code) => code.startsWith("needs-model") || code.startsWith("instruction"))).toEqual([]);
  });

  it("keeps a price in another currency than the task asks, unverified, with a warning that it was not converted", async () => {
    const { data, status, response } = await extract(
      product("39.00", "EUR"),
      { product_name: "string", price: "number" },
      { task: "Prices in US dollars." },
    );
    expect(data.price).toBe(39);
    expect(status["/price"]).toBe("unverified");
    const warning = response.warnings.find((w) => w.code === "instruction-not-applied");
    expect(warning).toMatchObject({ path: "/price" });
    expect(warning?.message).toContain("EUR");
  });

  it("writes a date as the task asks, where the builtin engine reads it", async () => {
    const { data, codes } = await extract(
      `<html><body><h1>Harbour pool</h1><table><tr><th>Opening date</th><td>25 May 2010</td></tr></table></body></html>`,
      { opening_date: "string" },
      { task: "Return dates as ISO 8601." },
    );
    expect(data.opening_date).toBe("2010-05-25");
    expect(codes).not.toContain("instruction-not-applied /opening_date");
  });

  it("gives every status even when evidence was not asked for, and then returns none", async () => {
    const { status, response } = await extract(SHOP, { material: "string", warranty: "string" }, { evidence: false });
    expect(status).toEqual({ "/material": "found", "/warranty": "absent" });
    expect(response.evidence).toEqual([]);
  });

  it("marks what the page does not hold as truncated when its fetcher read it only in part", async () => {
    const { status, codes } = await extract(
      SHOP,
      { material: "string", warranty: "string" },
      { pageWarnings: [{ code: "render-incomplete", message: "the render ran out of time", path: "" }] },
    );
    expect(status).toEqual({ "/material": "found", "/warranty": "truncated" });
    expect(codes).toContain("render-incomplete");
  });
});

/** The page part inside the delimiters of a model request. */
const pagePart = (body: ChatRequestBody) =>
  /<page_content>\n([\s\S]*)\n<\/page_content>/.exec(body.messages[1]?.content ?? "")?.[1] ?? "";

/** A shop page long enough to be read in parts: each aisle's section names its own manager. */
const AISLES = `<html><head><title>Store</title></head><body><h1>Store</h1>${Array.from(
  { length: 6 },
  (_, n) => `<h2>Aisle ${n}</h2><p>${"Filler text about the shop. ".repeat(20)}</p><p>Manager: Manager ${n}</p>`,
).join("")}</body></html>`;

describe("field status, with a model", () => {
  it("asks the model for a field whose builtin reading a JSON Schema's enum dropped, and holds its answer to the enum", async () => {
    const asked: string[][] = [];
    const { data, codes } = await extract(
      SHOP,
      { material: "string", capacity_litres: "number" },
      {
        hybrid: "proven",
        rules: { "/material": { allowedJson: ['"steel"', '"copper"'], format: "" } },
        model: (body) => {
          const schema = body.response_format?.json_schema?.schema as {
            properties: Record<string, { enum?: string[] }>;
          };
          asked.push(schema.properties.material?.enum ?? []);
          return { material: "Steel", capacity_litres: 1.7 };
        },
      },
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const values of asked) expect(values).toEqual(["steel", "copper", null]);
    expect(data).toEqual({ material: "steel", capacity_litres: 1.7 });
    expect(codes).toContain("coerced /material");
  });

  it("found where grounding finds the value, unverified where it does not, derived for the task's fields", async () => {
    const { status, response } = await extract(
      SHOP,
      { title: "string", price: "number", summary: "string" },
      {
        task: "Write a summary in one sentence.",
        model: () => ({ title: "Ridgeline Kettle", price: 49.5, summary: "A fast steel kettle." }),
      },
    );
    expect(status).toEqual({ "/title": "found", "/price": "unverified", "/summary": "derived" });
    expect(response.evidence.find((e) => e.pointer === "/price")).toMatchObject({
      grounded: false,
      status: "unverified",
    });
  });

  it("with a task, lets the builtin engine's proven answers stand for the fields the task does not ask for", async () => {
    const asked: string[] = [];
    const { data, status, codes, response } = await extract(
      SHOP,
      { servings: "integer", summary: "string" },
      {
        task: "Summarize the product in one sentence.",
        hybrid: "proven",
        model: (body) => {
          asked.push(body.messages[1]?.content ?? "");
          return { servings: 2, summary: "A fast steel kettle." };
        },
      },
    );
    expect(asked).toHaveLength(1);
    expect(data).toEqual({ servings: 4, summary: "A fast steel kettle." });
    expect(codes).toContain("prefilled");
    expect(status["/summary"]).toBe("derived");
    expect(response.evidence.find((e) => e.pointer === "/servings")?.source).toBe("json-ld");
  });

  it("conflict where the parts of a page disagree", async () => {
    const { status, codes } = await extract(
      AISLES,
      { manager: "string" },
      { pageTokens: 300, model: (body) => ({ manager: /Manager: (Manager \d)/.exec(pagePart(body))?.[1] ?? null }) },
    );
    expect(codes).toContain("merge-conflict /manager");
    expect(status).toEqual({ "/manager": "conflict" });
  });

  it("truncated for a field left null when only part of the page was read", async () => {
    const { status, codes } = await extract(
      AISLES,
      { store: "string", opening_hours: "string" },
      { pageTokens: 300, maxParts: 1, model: () => ({ store: "Store", opening_hours: null }) },
    );
    expect(codes).toContain("content-truncated");
    expect(status).toEqual({ "/store": "found", "/opening_hours": "truncated" });
  });

  it("names the one value of a list that grounding did not find", async () => {
    const { status } = await extract(
      SHOP,
      { specs: ["string"] },
      { model: () => ({ specs: ["Brushed steel", "1.7 litres", "Dishwasher safe"] }) },
    );
    expect(status).toEqual({ "/specs": "unverified", "/specs/2": "unverified" });
  });
});

import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { EvidenceTrail } from "../../schema/evidence.js";
import { shape } from "../../schema/shape.js";
import { extractBuiltin } from "./index.js";

/** What the service does with the builtin engine: extract, then shape. */
function run(html: string, schema: Record<string, unknown>) {
  const tree = parseSchema(schema);
  return shape(tree, extractBuiltin(tree, loadPage(html, "https://site.example/page")));
}

const jsonLd = (...blocks: unknown[]) =>
  `<html><head>${blocks.map((b) => `<script type="application/ld+json">${JSON.stringify(b)}</script>`).join("")}</head><body><h1>Heading</h1></body></html>`;

const PRODUCT = jsonLd({
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Trail Shoe",
  description: "A light shoe.",
  image: ["https://cdn.example/shoe-1.jpg", "https://cdn.example/shoe-2.jpg"],
  brand: { "@type": "Brand", name: "Acme" },
  sku: "TS-1",
  offers: [{ "@type": "Offer", price: "1,299.00", priceCurrency: "USD", availability: "https://schema.org/InStock" }],
  aggregateRating: { "@type": "AggregateRating", ratingValue: "4.6", reviewCount: 120 },
  review: [
    {
      "@type": "Review",
      author: { "@type": "Person", name: "Kim" },
      reviewRating: { ratingValue: 5 },
      reviewBody: "Great.",
    },
    {
      "@type": "Review",
      author: { "@type": "Person", name: "Lee" },
      reviewRating: { ratingValue: 3 },
      reviewBody: "Fine.",
    },
  ],
});

describe("extractBuiltin", () => {
  it("fills a product from JSON-LD, matching names by meaning", () => {
    const { data, warnings } = run(PRODUCT, {
      product_title: "string",
      price_usd: "number",
      currency: "string",
      in_stock: "boolean",
      brand_name: "string",
      sku: "string",
      rating_1_to_5: "number",
      review_count: "integer",
      image_urls: ["string"],
      reviews: [{ author: "string", rating: "integer", body: "string" }],
      seller: { name: "string" },
      warranty_years: "integer",
    });
    expect(data).toEqual({
      product_title: "Trail Shoe",
      price_usd: 1299,
      currency: "USD",
      in_stock: true,
      brand_name: "Acme",
      sku: "TS-1",
      rating_1_to_5: 4.6,
      review_count: 120,
      image_urls: ["https://cdn.example/shoe-1.jpg", "https://cdn.example/shoe-2.jpg"],
      reviews: [
        { author: "Kim", rating: 5, body: "Great." },
        { author: "Lee", rating: 3, body: "Fine." },
      ],
      // A wrapper object with no source of its own reads the same entity.
      seller: { name: "Trail Shoe" },
      warranty_years: null,
    });
    expect(warnings.every((w) => w.code === "coerced")).toBe(true);
  });

  it("reads a recipe from an @graph, with step sections and durations in the unit the name states", () => {
    const html = jsonLd({
      "@context": "https://schema.org",
      "@graph": [
        { "@type": "WebSite", "@id": "#site", name: "Cook Site" },
        { "@type": "WebPage", "@id": "#page", name: "Soup page", datePublished: "2024-01-02" },
        // A blog's Article entity comes first; the Recipe fills more of the schema, so it is the one read.
        { "@type": "Article", headline: "My soup post", author: { "@type": "Person", name: "Blogger" } },
        {
          "@type": "Recipe",
          name: "Tomato Soup",
          author: { "@id": "#chef" },
          recipeIngredient: ["4 tomatoes", "1 onion"],
          recipeInstructions: [
            { "@type": "HowToSection", name: "Prep", itemListElement: [{ "@type": "HowToStep", text: "Chop." }] },
            { "@type": "HowToStep", text: "Simmer." },
          ],
          prepTime: "PT15M",
          totalTime: "PT1H30M",
          recipeYield: ["4", "4 servings"],
        },
        { "@type": "Person", "@id": "#chef", name: "Ana Chef" },
      ],
    });
    const { data } = run(html, {
      recipe_name: "string",
      author: "string",
      ingredients: ["string"],
      instructions: ["string"],
      steps_text: "string",
      prep_time_minutes: "integer",
      total_time_hours: "number",
      total_time: "integer",
      servings: "string",
      published_date_iso8601: "string",
    });
    expect(data).toEqual({
      recipe_name: "Tomato Soup",
      author: "Ana Chef",
      ingredients: ["4 tomatoes", "1 onion"],
      instructions: ["Chop.", "Simmer."],
      steps_text: "Chop.\nSimmer.",
      prep_time_minutes: 15,
      total_time_hours: 1.5,
      // No unit in the name: the duration text is not converted, and not guessed.
      total_time: null,
      servings: "4\n4 servings",
      // Neither the Recipe nor the Article dates it; the WebPage does.
      published_date_iso8601: "2024-01-02",
    });
  });

  it("reads an article and lists of same-typed entities", () => {
    const html = jsonLd(
      {
        "@type": "NewsArticle",
        headline: "Big News",
        author: [
          { "@type": "Person", name: "A" },
          { "@type": "Person", name: "B" },
        ],
        datePublished: "2024-05-06T07:08:09Z",
      },
      [
        { "@type": "Event", name: "Launch" },
        { "@type": "Event", name: "Party" },
      ],
    );
    const { data } = run(html, {
      title: "string",
      authors: ["string"],
      published_at: "string",
      events: [{ name: "string" }],
    });
    expect(data).toEqual({
      title: "Big News",
      authors: ["A", "B"],
      published_at: "2024-05-06T07:08:09Z",
      events: [{ name: "Launch" }, { name: "Party" }],
    });
  });

  it("falls back to OpenGraph and meta tags", () => {
    const html = `<html><head><title>Doc</title>
      <meta property="og:title" content="OG Title"><meta property="og:image" content="https://cdn.example/og.png">
      <meta name="description" content="Meta description."><meta property="article:published_time" content="2023-03-04">
    </head><body><h1>Heading</h1></body></html>`;
    const { data } = run(html, {
      title: "string",
      summary: "string",
      image: "string",
      date: "string",
      price: "number",
    });
    expect(data).toEqual({
      title: "OG Title",
      summary: "Meta description.",
      image: "https://cdn.example/og.png",
      date: "2023-03-04",
      price: null,
    });
  });

  it("uses a lone <h1> when nothing else is there, not a <title> nothing confirms, and ignores invalid JSON-LD", () => {
    // Titles are often worded for search engines rather than readers: unconfirmed, the field is left to the model.
    const html = `<html><head><title>Only Title</title><script type="application/ld+json">{oops</script></head><body><p>text</p></body></html>`;
    expect(run(html, { title: "string", author: "string" }).data).toEqual({ title: null, author: null });
    expect(run(`<h1> Main   heading </h1><title>T</title>`, { name: "string" }).data).toEqual({ name: "Main heading" });
  });

  it("adds up a recipe's preparation and cooking times where it states no total, and only then", () => {
    const schema = { total_time_minutes: "integer", total_time: "string" };
    const recipe = (times: object) => run(jsonLd({ "@type": "Recipe", name: "Stew", ...times }), schema);
    expect(recipe({ prepTime: "PT20M", cookTime: "PT1H15M" }).data).toEqual({
      total_time_minutes: 95,
      total_time: "PT1H35M",
    });
    expect(recipe({ prepTime: "PT20M", cookTime: "PT15M", totalTime: "PT45M" }).data).toEqual({
      total_time_minutes: 45,
      total_time: "PT45M",
    });
    expect(recipe({ prepTime: "PT20M" }).data).toEqual({ total_time_minutes: null, total_time: null });
    // A sum the page never states is a suggestion for the model to check, not a value to stand on its own.
    const trail = new EvidenceTrail();
    const tree = parseSchema(schema);
    extractBuiltin(
      tree,
      loadPage(jsonLd({ "@type": "Recipe", prepTime: "PT20M", cookTime: "PT15M" }), "https://site.example/"),
      trail,
    );
    expect(trail.evidence.get("/total_time_minutes")).toMatchObject({ source: "json-ld", text: "PT20M + PT15M" });
    expect(trail.evidence.get("/total_time_minutes")!.confidence).toBeLessThan(0.85);
  });

  it("reads a phone field's label as the numbers it holds, not the links that run on after them", () => {
    const html = `<ul><li>Address: 737 W. 5th Ave.</li><li>Phone: 907/274-2739 | <a href="/book">Reserve Online</a></li></ul>`;
    expect(run(html, { phone: "string" }).data).toEqual({ phone: "907/274-2739" });
  });

  it("reads hand-written JSON-LD that JSON forbids: a closing semicolon, trailing commas, a raw line break in a string", () => {
    const recipe = `{"@type": "Recipe", "name": "Green Bean Casserole", "totalTime": "PT40M", "recipeYield": "6",}`;
    expect(
      run(`<script type="application/ld+json">\n${recipe};\n</script>`, {
        recipe_title: "string",
        total_time_minutes: "integer",
      }).data,
    ).toEqual({
      recipe_title: "Green Bean Casserole",
      total_time_minutes: 40,
    });
    const article = `{"@type": "NewsArticle", "headline": "Two\nlines", "author": {"@type": "Person", "name": "Ana Lima"}}`;
    expect(run(`<script type="application/ld+json">${article}</script>`, { author: "string" }).data).toEqual({
      author: "Ana Lima",
    });
  });

  it("is not fooled by names that exist on Object.prototype", () => {
    expect(run(PRODUCT, { constructor_name: "string", value_of: "number", to_string_minutes: "integer" }).data).toEqual(
      {
        // Found only as a bare "name", which leaves out the field's first word: not confident.
        constructor_name: null,
        value_of: null,
        to_string_minutes: null,
      },
    );
  });

  it("reads labelled values and microdata when there is no JSON-LD, in the field's type (`car_name`: the name of the Car item)", () => {
    const html = `<title>Accent | Cars</title><div itemscope itemtype="https://schema.org/Car"><h1 itemprop="name">2010 Hyundai Accent</h1></div>
      <table><tr><th>Phone</th><td>(800) 460-6228</td></tr><tr><th>Fuel economy</th><td>27 City / 36 Hwy</td></tr></table>
      <ul><li><b>Price:</b> $9,970</li><li><b>Posted:</b> Nov 23, 2010</li><li><b>Genres:</b> <a>Crime</a> | <a>Thriller</a></li></ul>`;
    const schema = {
      car_name: "string",
      phone: "string",
      fuel_economy: "string",
      price_usd: "number",
      date_posted_iso8601: "string",
      genres: ["string"],
    };
    expect(run(html, schema).data).toEqual({
      car_name: "2010 Hyundai Accent",
      phone: "(800) 460-6228",
      fuel_economy: "27 City / 36 Hwy",
      price_usd: 9970,
      date_posted_iso8601: "2010-11-23",
      genres: ["Crime", "Thriller"],
    });
  });

  it("leaves a field null rather than guess: conflicting labels, a date label without a date, a partial name match", () => {
    const html = `<p>Price: $249.99</p><p>Price: $179.00</p><p>Posted: recently</p>
      <script type="application/ld+json">{"@type":"Product","name":"Lamp"}</script>`;
    expect(run(html, { price_usd: "number", date_posted_iso8601: "string", seller_name: "string" }).data).toEqual({
      price_usd: null,
      date_posted_iso8601: null,
      seller_name: null,
    });
  });

  it("answers numbers in the units the name states: no price in another currency, ratings moved to the named scale", () => {
    const html = jsonLd({
      "@type": "Product",
      name: "Lamp",
      offers: { price: "12.50", priceCurrency: "EUR" },
      aggregateRating: { ratingValue: "8", bestRating: "10" },
    });
    expect(run(html, { price_usd: "number", price_eur: "number", rating_1_to_5: "number" }).data).toEqual({
      price_usd: null,
      price_eur: 12.5,
      rating_1_to_5: 4,
    });
    expect(run(`<p>Price: 12,50 €</p>`, { price_usd: "number", price: "number" }).data).toEqual({
      price_usd: null,
      price: 12.5,
    });
  });

  it("answers all nulls for an empty page", () => {
    expect(run("", { title: "string", items: [{ name: "string" }], meta: { a: "number" } }).data).toEqual({
      title: null,
      items: null,
      meta: { a: null },
    });
  });

  it("prefers the visible byline's date, and a person it names over the site's name as the author", () => {
    const html = `<html><head><meta property="og:site_name" content="Site Example">
      <script type="application/ld+json">${JSON.stringify({ "@type": "NewsArticle", headline: "Bridge opens", author: { "@type": "Organization", name: "Site Example" }, datePublished: "2022-11-06T23:00:00Z" })}</script>
      </head><body><article><h1>Bridge opens</h1><p class="byline">By <a rel="author" href="/author/kim">Kim Lee</a> · 7 November 2022</p><p>Text.</p></article></body></html>`;
    expect(run(html, { headline: "string", author: "string", published_date_iso8601: "string" }).data).toEqual({
      headline: "Bridge opens",
      author: "Kim Lee",
      published_date_iso8601: "2022-11-07",
    });
  });

  it("keeps the site's name as the author when no byline names anyone else", () => {
    const html = jsonLd({
      "@type": "Recipe",
      name: "Soup",
      author: { "@type": "Organization", name: "Site Example" },
    }).replace("<head>", '<head><meta property="og:site_name" content="Site Example">');
    expect(run(html, { author_name: "string" }).data).toEqual({ author_name: "Site Example" });
  });

  it("reads one text written line by line as a list of its lines", () => {
    const html = jsonLd({
      "@type": "Recipe",
      name: "Pancakes",
      recipeInstructions: "Mix the batter.\r\n Rest it 10 minutes.\r\n\r\nFry.",
    });
    expect(run(html, { instructions: ["string"] }).data).toEqual({
      instructions: ["Mix the batter.", "Rest it 10 minutes.", "Fry."],
    });
  });

  it("answers from an organization the page is about (its name is the heading), not from one that merely stands in", () => {
    const card = `<div class="vcard"><h1 class="fn org">Abilene Christian University</h1><div class="tel"><span class="value">(800) 460-6228</span></div>
      <span class="url">Web site: http://www.acu.edu</span></div>`;
    expect(
      run(`<html><head><title>Abilene Christian University | Colleges</title></head><body>${card}</body></html>`, {
        name: "string",
        phone: "string",
        website: "string",
      }).data,
    ).toEqual({
      name: "Abilene Christian University",
      phone: "(800) 460-6228",
      website: "http://www.acu.edu",
    });
    const publisher = jsonLd({ "@type": "Organization", name: "Site Example", telephone: "+1 555 0100" });
    expect(run(publisher, { phone: "string" }).data).toEqual({ phone: null });
  });

  it("looks past a link where the field wants a name", () => {
    const html = `<html><head><meta property="article:author" content="https://www.facebook.com/site/"></head>
      <body><article><h1>Fleisch</h1><span class="author vcard">von <a rel="author" href="/author/cs/">Christoph Schulz</a></span></article></body></html>`;
    expect(run(html, { author: "string" }).data).toEqual({ author: "Christoph Schulz" });
  });

  it("takes no trademark or profile link for an author's name", () => {
    const recipe = (author: string) =>
      jsonLd({ "@type": "Recipe", name: "Soup", author: { "@type": "Organization", name: author } });
    expect(run(recipe("KITCHENPRO ® RECIPE"), { author_name: "string" }).data).toEqual({ author_name: null });
    expect(run(recipe("Blenders™ Test Kitchen"), { author_name: "string" }).data).toEqual({ author_name: null });
    expect(run(recipe("social.example/souprecipes"), { author_name: "string" }).data).toEqual({ author_name: null });
    // A site's bare domain names the site, as a publisher that signs its recipes does.
    expect(run(recipe("Souprecipes.example"), { author_name: "string" }).data).toEqual({
      author_name: "Souprecipes.example",
    });
  });

  it("drops markup left in structured data's texts", () => {
    const html = jsonLd({
      "@type": "Recipe",
      name: "Tacos",
      recipeIngredient: ['<a href="/beans">1/2 cup black beans</a>, warmed', "1 tsp <b>olive</b> oil", "2 < 3 limes"],
    });
    expect(run(html, { ingredients: ["string"] }).data).toEqual({
      ingredients: ["1/2 cup black beans, warmed", "1 tsp olive oil", "2 < 3 limes"],
    });
  });

  it("drops the by-word metadata puts before an author's name", () => {
    expect(
      run(`<html><head><meta name="author" content="by Ben Popper"></head><body></body></html>`, { author: "string" })
        .data,
    ).toEqual({ author: "Ben Popper" });
  });

  it("takes no site's tagline for the page's description", () => {
    const html = (description: string) =>
      `<html><head><meta property="og:site_name" content="Acme News"><meta name="description" content="${description}"></head><body><h1>Storm ahead</h1></body></html>`;
    expect(run(html("Acme News - the news portal"), { description: "string" }).data).toEqual({ description: null });
    expect(run(html("A storm reaches the coast tonight."), { description: "string" }).data).toEqual({
      description: "A storm reaches the coast tonight.",
    });
  });

  it("answers unit-suffixed names in their unit from what the page states, and null where it states no such measure", () => {
    const html = `<html><body><h1>Down Bag</h1><table>
      <tr><th>Weight</th><td>1.2 kg</td></tr>
      <tr><th>Temperature rating</th><td>23 °F</td></tr>
      <tr><th>Length</th><td>Regular</td></tr>
    </table></body></html>`;
    const schema = {
      weight: "string",
      weight_grams: "number",
      weight_kg: "number",
      temperature_rating_celsius: "number",
      length_cm: "number",
    };
    expect(run(html, schema).data).toEqual({
      weight: "1.2 kg",
      weight_grams: 1200,
      weight_kg: 1.2,
      temperature_rating_celsius: -5,
      length_cm: null,
    });
  });

  describe("product pages", () => {
    const SHOP = {
      product_name: "string",
      price: "number",
      currency: "string",
      sku: "string",
      brand: "string",
      in_stock: "boolean",
    };
    const page = (data: unknown, body: string) =>
      `<html><head><script type="application/ld+json">${JSON.stringify(data)}</script></head><body>${body}</body></html>`;

    it("answers the price the data states and the buy box shows, and the SKU and brand the page labels over the data's own", () => {
      const data = {
        "@type": "Product",
        name: "Trail Shoe",
        sku: "9001-INTERNAL",
        brand: "See all of the brand: Acme",
        offers: [{ price: "149.00" }, { price: "129.99", availability: "https://schema.org/InStock" }],
      };
      const body = `<div class="product"><h1>Trail Shoe</h1><s class="price">$149.00</s><span class="price">$129.99</span><button>Add to cart</button>
        <ul><li><b>Product code:</b> TS-42</li></ul></div>`;
      expect(run(page(data, body), SHOP).data).toEqual({
        product_name: "Trail Shoe",
        price: 129.99,
        currency: "USD",
        sku: "TS-42",
        brand: "Acme",
        in_stock: true,
      });
      expect(run(page(data, body), { brand_name: "string", product_sku: "string" }).data).toEqual({
        brand_name: "Acme",
        product_sku: "TS-42",
      });
    });

    it("takes no page title for a brand", () => {
      const html = (brand: string) =>
        `<html><head><meta property="og:site_name" content="Deals Site"><script type="application/ld+json">${JSON.stringify({ "@type": "Product", name: "Show", brand })}</script></head><body></body></html>`;
      expect(run(html("City Theatre | Deals Site"), { brand: "string" }).data).toEqual({ brand: null });
      expect(run(html("Smith | Wesson"), { brand: "string" }).data).toEqual({ brand: "Smith | Wesson" });
    });

    it("doubts a brand that is the shop's own name unless the page labels it so", () => {
      const html = (body: string) =>
        `<html><head><meta property="og:site_name" content="Acme Store"><script type="application/ld+json">${JSON.stringify({ "@type": "Product", name: "Mug", brand: "Acme Store" })}</script></head><body>${body}</body></html>`;
      expect(run(html(""), { brand: "string" }).data).toEqual({ brand: null });
      expect(run(html("<dl><dt>Brand</dt><dd>Acme Store</dd></dl>"), { brand: "string" }).data).toEqual({
        brand: "Acme Store",
      });
    });

    it("takes a SKU from the page's address only where the page states none", () => {
      const body = `<div><h1>Trail Shoe</h1></div>`;
      const html = (head: string) =>
        `<html><head>${head}<link rel="canonical" href="https://site.example/item/TS000042"></head><body>${body}</body></html>`;
      expect(run(html(""), { sku: "string" }).data).toEqual({ sku: "TS000042" });
      expect(
        run(html(`<script type="application/ld+json">{"@type":"Product","name":"Trail Shoe","mpn":"MPN-7"}</script>`), {
          sku: "string",
        }).data,
      ).toEqual({ sku: "MPN-7" });
    });

    it("answers from the buy box alone where the page has no structured data", () => {
      const body = `<div><h1>Trail Shoe</h1><p class="product-price">CHF 89.00</p><button>In den Warenkorb</button></div>`;
      expect(run(body, { price: "number", currency: "string", in_stock: "boolean" }).data).toEqual({
        price: 89,
        currency: "CHF",
        in_stock: true,
      });
    });

    it("leaves price and stock null where the data and the buy box disagree", () => {
      const data = {
        "@type": "Product",
        name: "Trail Shoe",
        offers: { price: "90", availability: "https://schema.org/InStock" },
      };
      const body = `<div><h1>Trail Shoe</h1><p class="price">$400</p><p>Sold out</p></div>`;
      expect(run(page(data, body), { price: "number", in_stock: "boolean" }).data).toEqual({
        price: null,
        in_stock: null,
      });
    });
  });
});

import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { EvidenceTrail } from "../../schema/evidence.js";
import { shape } from "../../schema/shape.js";
import { extractBuiltin } from "./index.js";

/** Field names as callers write them (issue 38, item 1), on written pages, through the builtin engine and shape. */
function run(html: string, schema: Record<string, unknown>) {
  const tree = parseSchema(schema);
  return shape(tree, extractBuiltin(tree, loadPage(html, "https://shop.example/p/1"))).data;
}

const jsonLd = (data: unknown, body = "") =>
  `<html><head><script type="application/ld+json">${JSON.stringify(data)}</script></head><body>${body}</body></html>`;

/** A product page without structured data: a heading, a byline, a rating, a count and a spec table. */
const PLAIN_PRODUCT = `<html><head><title>Alpine Jacket | Outdoor Shop</title></head><body>
  <h1>Alpine Jacket</h1>
  <p class="brand">by Northpeak</p>
  <div class="rating"><span>4.4 out of 5</span> <a href="#reviews">87 reviews</a></div>
  <p class="price">$129.00</p>
  <button>Add to cart</button>
</body></html>`;

describe("field names a caller would write", () => {
  it("reads `product_name`, `item_title` and `recipe_name` as the page's main title when nothing better answers", () => {
    expect(run(PLAIN_PRODUCT, { product_name: "string", item_title: "string" })).toEqual({
      product_name: "Alpine Jacket",
      item_title: "Alpine Jacket",
    });
    const recipe = `<html><head><title>Lemon Cake - Baking Site</title></head><body><h1>Lemon Cake</h1>
      <h2>Ingredients</h2><ul><li>2 lemons</li><li>200 g flour</li></ul></body></html>`;
    expect(run(recipe, { recipe_name: "string" })).toEqual({ recipe_name: "Lemon Cake" });
  });

  it("keeps a name whose first words name another thing from the page's title (`company_name` is not the heading)", () => {
    expect(run(PLAIN_PRODUCT, { company_name: "string" })).toEqual({ company_name: null });
  });

  it("reads qualifier and count words as the concept they qualify", () => {
    const product = jsonLd({
      "@context": "https://schema.org",
      "@type": "Product",
      name: "Alpine Jacket",
      offers: { "@type": "Offer", price: "129.00", priceCurrency: "USD", availability: "https://schema.org/InStock" },
      aggregateRating: { "@type": "AggregateRating", ratingValue: 4.4, reviewCount: 87, ratingCount: 90 },
    });
    expect(
      run(product, {
        current_price: "number",
        price_amount: "number",
        is_available: "boolean",
        has_stock: "boolean",
        num_reviews: "integer",
        number_of_ratings: "integer",
      }),
    ).toEqual({
      current_price: 129,
      price_amount: 129,
      is_available: true,
      has_stock: true,
      num_reviews: 87,
      number_of_ratings: 90,
    });
  });

  it("reads word forms and WordNet synonyms: `ingredient_list`, `cost`, `publication_date_iso8601`, `phone_number`", () => {
    const stated = { datePublished: "2024-03-02", recipeIngredient: ["2 lemons", "200 g flour"] };
    const recipe = jsonLd({ "@context": "https://schema.org", "@type": "Recipe", ...stated });
    expect(run(recipe, { ingredient_list: ["string"], publication_date_iso8601: "string" })).toEqual({
      ingredient_list: ["2 lemons", "200 g flour"],
      publication_date_iso8601: "2024-03-02",
    });
    const shop = jsonLd({
      "@context": "https://schema.org",
      "@type": "Restaurant",
      name: "Corner Deli",
      telephone: "+1 555 0100",
    });
    const product = jsonLd({
      "@context": "https://schema.org",
      "@type": "Product",
      name: "Kettle",
      offers: { price: 30 },
    });
    expect(run(shop, { phone_number: "string" })).toEqual({ phone_number: "+1 555 0100" });
    expect(run(product, { cost: "number" })).toEqual({ cost: 30 });
  });
});

describe("values a page shows under labels and in nested fields", () => {
  it("reads a nested author's name and link as the flat author's", () => {
    const article = `<html><head><title>Rain Due - News</title></head><body><article><h1>Rain due on Sunday</h1>
      <p class="byline">By <a href="/authors/ana-ruiz" rel="author">Ana Ruiz</a> · <time datetime="2024-05-01">May 1, 2024</time></p>
      <p>Forecasters expect rain across the region on Sunday afternoon, with a chance of thunder later.</p></article></body></html>`;
    expect(run(article, { author: { name: "string", url: "string" } })).toEqual({
      author: { name: "Ana Ruiz", url: "https://shop.example/authors/ana-ruiz" },
    });
  });

  it("reads `vcpus` and `memory_gb` under a table's column headers", () => {
    const plan = `<html><body><h1>Compute plan</h1><table>
      <tr><th>vCPUs</th><th>Memory</th><th>Storage</th></tr>
      <tr><td>4</td><td>16 GB</td><td>200 GB SSD</td></tr></table></body></html>`;
    expect(run(plan, { vcpus: "integer", memory_gb: "number" })).toEqual({ vcpus: 4, memory_gb: 16 });
  });

  it("reads a rating out of 5 and a count of reviews as the page writes them", () => {
    expect(run(PLAIN_PRODUCT, { rating_out_of_5: "number", review_count: "integer", num_reviews: "integer" })).toEqual({
      rating_out_of_5: 4.4,
      review_count: 87,
      num_reviews: 87,
    });
  });

  it("reads the brand a product's heading credits (“by Northpeak”)", () => {
    expect(run(PLAIN_PRODUCT, { brand: "string", brand_name: "string" })).toEqual({
      brand: "Northpeak",
      brand_name: "Northpeak",
    });
  });

  it("reads ingredients and instructions under plain headings", () => {
    const recipe = `<html><head><title>Lemon Cake</title></head><body><h1>Lemon Cake</h1>
      <h2>Ingredients</h2><ul><li>2 lemons</li><li>200 g flour</li><li>100 g sugar</li></ul>
      <h2>Instructions</h2><ol><li>Heat the oven to 180 °C.</li><li>Mix everything and bake for 40 minutes.</li></ol>
      </body></html>`;
    expect(run(recipe, { ingredients: ["string"], instructions: ["string"] })).toEqual({
      ingredients: ["2 lemons", "200 g flour", "100 g sugar"],
      instructions: ["Heat the oven to 180 °C.", "Mix everything and bake for 40 minutes."],
    });
  });
});

describe("a near name's hint", () => {
  it("warns when a field answers null while a concept its name holds answers", () => {
    const product = jsonLd({
      "@context": "https://schema.org",
      "@type": "Product",
      name: "Kettle",
      offers: { price: 30 },
    });
    const tree = parseSchema({ price_tier: "string", colour: "string" });
    const trail = new EvidenceTrail();
    expect(extractBuiltin(tree, loadPage(product, "https://shop.example/p/1"), trail)).toEqual({
      price_tier: null,
      colour: null,
    });
    expect(trail.warnings).toEqual([
      {
        code: "name-hint",
        message: 'no value for this name; the page answers the near name "price"',
        path: "/price_tier",
      },
    ]);
  });
});

describe("labels that name a field in fewer words", () => {
  it("matches `director_name` to “Director:”, `player_height` to “Height:”, `cuisine_type` to “Cuisine:”", () => {
    const page = `<html><body><h1>Sam Lee</h1><ul><li><b>Director:</b> Ana Ruiz</li><li><b>Height:</b> 6-2</li>
      <li><b>Cuisine:</b> Thai</li><li><b>Part number:</b> 3506B001</li>
      <li><b>ISBN-10:</b> 0307269991</li><li><b>ISBN-13:</b> 978-0307269997</li></ul></body></html>`;
    expect(
      run(page, {
        director_name: "string",
        player_height: "string",
        cuisine_type: "string",
        part_number: "string",
        isbn_13: "string",
      }),
    ).toEqual({
      director_name: "Ana Ruiz",
      player_height: "6-2",
      cuisine_type: "Thai",
      part_number: "3506B001",
      isbn_13: "978-0307269997",
    });
  });

  it("reads `cooking_time_minutes`, `preparation_time_minutes` and `total_duration_minutes` from a recipe's times, `product_code` as the SKU", () => {
    const recipe = jsonLd({ "@context": "https://schema.org", "@type": "Recipe", name: "Stew", cookTime: "PT1H30M" });
    expect(run(recipe, { cooking_time_minutes: "integer" })).toEqual({ cooking_time_minutes: 90 });
    const timed = jsonLd({ "@context": "https://schema.org", "@type": "Recipe", prepTime: "PT15M", totalTime: "PT1H" });
    expect(run(timed, { preparation_time_minutes: "integer", total_duration_minutes: "integer" })).toEqual({
      preparation_time_minutes: 15,
      total_duration_minutes: 60,
    });
    const product = jsonLd({ "@context": "https://schema.org", "@type": "Product", name: "Kettle", sku: "KT-100" });
    expect(run(product, { product_code: "string" })).toEqual({ product_code: "KT-100" });
  });

  it("reads `first_post_time` as the first of a thread's posts, `posted_at` as `date_posted`", () => {
    const post = (who: string, when: string, text: string) =>
      `<table><tr><td><b>${who}</b></td><td><span>Posted: ${when}<span>&nbsp;</span>&nbsp; &nbsp;Subject: Re: Rust</span><p>${text}</p></td></tr></table>`;
    const thread = `<html><body><h2>Rust on the sills</h2>${post("kim", "Wed Jan 07, 2004 4:53 pm", "Any tips?")}${post(
      "lee",
      "Thu Jan 08, 2004 7:40 am",
      "Treat it early.",
    )}</body></html>`;
    expect(run(thread, { first_post_time: "string" })).toEqual({ first_post_time: "Wed Jan 07, 2004 4:53 pm" });
    const ad = `<html><body><h1>Bike for sale</h1><p>Posted: 2 May 2024</p><p>Good bike.</p></body></html>`;
    // A moment's word after a date's concept reads as the concept: `posted_at` as `date_posted`.
    expect(run(ad, { posted_at: "string", date_posted: "string" })).toEqual({
      posted_at: "2024-05-02",
      date_posted: "2024-05-02",
    });
  });
});

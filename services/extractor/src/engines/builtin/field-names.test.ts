import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
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
    const recipe = jsonLd({
      "@context": "https://schema.org",
      "@type": "Recipe",
      name: "Lemon Cake",
      datePublished: "2024-03-02",
      recipeIngredient: ["2 lemons", "200 g flour"],
    });
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
    const product = jsonLd({ "@context": "https://schema.org", "@type": "Product", name: "Kettle", offers: { price: 30 } });
    expect(run(shop, { phone_number: "string" })).toEqual({ phone_number: "+1 555 0100" });
    expect(run(product, { cost: "number" })).toEqual({ cost: 30 });
  });
});

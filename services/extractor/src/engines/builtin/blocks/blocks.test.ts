import { type ObjectNode, parseSchema } from "@winnow/platform";
import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../../page/page.js";
import { nameHints } from "../../../schema/field-names.js";
import { extractBuiltin } from "../index.js";
import { readBlocks } from "./index.js";

/**
 * The blocks for one array-of-objects field of the schema; `known` gives the texts structured data states per item
 * field.
 */
function blocks(html: string, schema: Record<string, unknown>, known: Record<string, string[]> = {}) {
  const [field] = parseSchema(schema).fields;
  const items = (field!.node as { items: ObjectNode }).items;
  return readBlocks(load(html), items, nameHints(field!.name), (name) => known[name] ?? []);
}

const GROUPS = { ingredient_groups: [{ group_name: "string", ingredients: ["string"] }] };

describe("readBlocks", () => {
  it("reads repeated groups named in the markup, a first group without a heading included", () => {
    const html = `<div class="recipe-ingredients"><h3>Ingredients</h3>
      <div class="ingredient-group"><ul><li class="ingredient">&#9634; 2 cups flour</li><li class="ingredient">1 tsp salt</li></ul></div>
      <div class="ingredient-group"><h4 class="group-name">For the sauce:</h4><ul><li class="ingredient">2 cups milk</li></ul></div></div>`;
    expect(blocks(html, GROUPS)).toEqual([
      { group_name: null, ingredients: ["2 cups flour", "1 tsp salt"] },
      { group_name: "For the sauce:", ingredients: ["2 cups milk"] },
    ]);
  });

  it("groups the lists that hold the known items by the headings before and among them", () => {
    const html = `<section><h2>Ingredients</h2><ul><li>1 tbsp olive oil</li><li>2 eggs</li></ul>
      <p>Topping</p><ul><li>1 tablespoon sugar</li><li><span class="ing-heading">Garnish</span></li><li>mint leaves</li></ul></section>
      <ul class="menu"><li>Home</li><li>Recipes</li></ul>`;
    const known = { ingredients: ["1 tbsp olive oil", "2 eggs", "1 tbsp sugar", "mint leaves"] };
    expect(blocks(html, GROUPS, known)).toEqual([
      { group_name: null, ingredients: ["1 tbsp olive oil", "2 eggs"] },
      { group_name: "Topping", ingredients: ["1 tablespoon sugar"] },
      { group_name: "Garnish", ingredients: ["mint leaves"] },
    ]);
    // Lists that hold too few of the known items are not the ingredients.
    expect(blocks(html, GROUPS, { ingredients: [...known.ingredients, "3 cups broth", "1 onion"] })).toBeUndefined();
  });

  it("reads a review list's author, rating and text from elements named for them", () => {
    const review = (author: string, rating: string, text: string) =>
      `<div class="review"><span class="review-author">${author}</span><span class="review-author-avatar">AB</span>
        ${rating}<p class="review-text">${text}</p></div>`;
    const html = `<div class="reviews">${review("Kim", `<div class="star-rating" aria-label="Rated 5 out of 5">★★★★★</div>`, "Great shoe.")}
      ${review("Lee", `<div class="star-rating" data-id="77" data-rating="3">★★★</div>`, "Runs small.")}</div>`;
    expect(blocks(html, { reviews: [{ author: "string", rating: "number", text: "string" }] })).toEqual([
      { author: "Kim", rating: 5, text: "Great shoe." },
      { author: "Lee", rating: 3, text: "Runs small." },
    ]);
  });

  it("reads table rows under a header row by column", () => {
    const html = `<table><thead><tr><th>Player</th><th>Team</th><th>Goals</th></tr></thead>
      <tbody><tr><td>Ann Lee</td><td>Reds</td><td>12</td></tr><tr><td>Bo Kim</td><td>Blues</td><td>7</td></tr></tbody></table>`;
    expect(blocks(html, { scorers: [{ player: "string", team: "string", goals: "integer" }] })).toEqual([
      { player: "Ann Lee", team: "Reds", goals: 12 },
      { player: "Bo Kim", team: "Blues", goals: 7 },
    ]);
  });

  it("does not read a navigation menu or unrelated repeated links as reviews", () => {
    const html = `<nav><ul class="menu"><li class="menu-item"><a href="/">Home</a></li><li class="menu-item"><a href="/shop">Shop</a></li></ul></nav>
      <div class="related"><div class="post"><h3 class="post-title">Ten tips</h3><span class="post-author">Kim</span><p class="post-text">Tips.</p></div>
      <div class="post"><h3 class="post-title">Five more</h3><span class="post-author">Lee</span><p class="post-text">More.</p></div></div>`;
    expect(blocks(html, { reviews: [{ author: "string", rating: "number", text: "string" }] })).toBeUndefined();
  });

  // Bounded in what it answers; its cost is held linear by counts in flow/list-cost.test.ts, not by a clock here.
  it("answers a bounded list on a page of many repeated blocks", () => {
    const row = (i: number) =>
      `<div class="review"><span class="review-author">User ${i}</span><p class="review-text">Text ${i}</p></div>`;
    const html = `<div class="reviews">${Array.from({ length: 20_000 }, (_, i) => row(i)).join("")}</div>`;
    const reviews = blocks(html, { reviews: [{ author: "string", text: "string" }] });
    expect(reviews).toHaveLength(100);
    expect(reviews?.[99]).toEqual({ author: "User 99", text: "Text 99" });
  });

  it("is the engine's source for an array only when structured data has no items, and takes known values from it", () => {
    const recipe = {
      "@context": "https://schema.org",
      "@type": "Recipe",
      name: "Rolls",
      recipeIngredient: ["2 cups flour", "1 tsp salt", "2 cups milk"],
    };
    const lists = `<div><h3>Dough</h3><ul><li>2 cups flour</li><li>1 tsp salt</li></ul><h3>Sauce</h3><ul><li>2 cups milk</li></ul></div>`;
    const page = (data: object) =>
      loadPage(`<script type="application/ld+json">${JSON.stringify(data)}</script>${lists}`, "https://site.example/");
    const schema = { ...GROUPS, reviews: [{ author: "string" }] };
    expect(extractBuiltin(parseSchema(schema), page(recipe))).toEqual({
      ingredient_groups: [
        { group_name: "Dough", ingredients: ["2 cups flour", "1 tsp salt"] },
        { group_name: "Sauce", ingredients: ["2 cups milk"] },
      ],
      reviews: null,
    });
    const reviewed = { ...recipe, review: [{ "@type": "Review", author: { "@type": "Person", name: "Kim" } }] };
    expect(extractBuiltin(parseSchema(schema), page(reviewed)).reviews).toEqual([{ author: "Kim" }]);
  });
});

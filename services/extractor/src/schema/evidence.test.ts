import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { extractBuiltin } from "../engines/builtin/index.js";
import { loadPage } from "../page/page.js";
import { PageStatements } from "../page/stated.js";
import { EvidenceTrail, presentIn, withStatedValues } from "./evidence.js";
import { shape } from "./shape.js";

const PAGE = `<html><head><title>Ridge Stew | Cook Site</title>
  <meta property="og:site_name" content="Cook Site">
  <meta name="description" content="A slow stew for cold days.">
  <script type="application/ld+json">{"@type": "Recipe", "name": "Ridge Stew", "recipeIngredient": ["2 carrots", "1 onion"]}</script>
</head><body><article>
  <h1>Ridge Stew</h1>
  <p class="byline">By <a rel="author" href="/author/ada">Ada Brook</a> · March 3, 2024</p>
  <table><tr><th>Cuisine</th><td>Alpine</td></tr></table>
  <div class="reviews">
    <div class="review"><span class="review-author">Kim</span><span class="review-rating">4</span></div>
    <div class="review"><span class="review-author">Lee</span><span class="review-rating">5</span></div>
  </div>
</article></body></html>`;

const SCHEMA = {
  title: "string",
  description: "string",
  author: "string",
  published: "string",
  cuisine: "string",
  ingredients: ["string"],
  reviews: [{ author: "string", rating: "number" }],
  calories: "number",
};

describe("builtin evidence", () => {
  const tree = parseSchema(SCHEMA);
  const page = loadPage(PAGE, "https://cook.example/ridge-stew");
  const trail = new EvidenceTrail();
  const { data } = shape(tree, extractBuiltin(tree, page, trail));
  const evidence = withStatedValues(presentIn(trail.evidence, data), data, new PageStatements(page));

  it("says where each value was read, by JSON pointer", () => {
    expect(Object.fromEntries([...evidence].map(([pointer, e]) => [pointer, e.source]))).toEqual({
      "/title": "json-ld",
      "/description": "meta",
      "/author": "byline",
      "/published": "byline",
      "/cuisine": "label",
      "/ingredients/0": "json-ld",
      "/ingredients/1": "json-ld",
      "/reviews/0/author": "layout",
      "/reviews/0/rating": "layout",
      "/reviews/1/author": "layout",
      "/reviews/1/rating": "layout",
    });
    expect(evidence.has("/calories")).toBe(false);
  });

  it("gives the text the value was read from and a selector of an element holding it", () => {
    for (const [pointer, { text, selector, confidence }] of evidence) {
      expect(text, pointer).toBeTruthy();
      expect(confidence).toBeGreaterThanOrEqual(0.6);
      if (!selector) continue;
      const selected = page.$(selector);
      expect(selected.length, selector).toBe(1);
      expect(`${selected.text()} ${selected.attr("content") ?? ""}`, selector).toContain(text);
    }
    expect(evidence.get("/title")).toEqual({
      source: "json-ld",
      text: "Ridge Stew",
      confidence: expect.any(Number),
      grounded: true,
    });
    expect(evidence.get("/cuisine")).toMatchObject({ text: "Alpine", selector: "td" });
    expect(evidence.get("/reviews/1/author")).toMatchObject({ text: "Lee" });
  });

  it("grounds what the page shows a reader: structured data only where the visible page states it too", () => {
    const grounded = Object.fromEntries([...evidence].map(([pointer, e]) => [pointer, e.grounded]));
    expect(grounded).toEqual({
      // The JSON-LD name is the page's heading; its ingredients and the meta description are shown nowhere.
      "/title": true,
      "/description": false,
      "/author": true,
      "/published": true,
      "/cuisine": true,
      "/ingredients/0": false,
      "/ingredients/1": false,
      "/reviews/0/author": true,
      "/reviews/0/rating": true,
      "/reviews/1/author": true,
      "/reviews/1/rating": true,
    });
  });
});

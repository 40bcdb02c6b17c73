import { describe, expect, it } from "vitest";
import { loadPage } from "../page/page.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { prefill, suggestionsOf } from "./prefill.js";
import { PROVEN_RELIABILITY, reliabilityOf } from "./prefill-calibration.js";

/**
 * A product whose name and review count is in JSON-LD (integers from JSON-LD hold across the corpus's sites) and whose SKU is
 * under a visible label (labelled texts are right on the dev sites their rules were written for, but too few sites
 * show them to bound their precision on others at PROVEN_RELIABILITY).
 */
const PAGE = `<html><head><script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Trail shoe",
  aggregateRating: { "@type": "AggregateRating", ratingValue: 4.5, reviewCount: 128 },
})}</script></head><body>
  <h1>Trail shoe</h1>
  <table class="specs"><tr><th>SKU</th><td>TS-4410</td></tr></table>
</body></html>`;
const TREE = new SchemaCache().get(JSON.stringify({ name: "string", review_count: "integer", sku: "string" })).tree;

describe("proven pre-fill", () => {
  it("lets a value stand only from a source and kind that holds across sites", () => {
    expect(reliabilityOf("json-ld", "integer")).toBeGreaterThanOrEqual(PROVEN_RELIABILITY);
    expect(reliabilityOf("label", "text")).toBeLessThan(PROVEN_RELIABILITY);
    const pre = prefill(TREE, loadPage(PAGE, "https://shop.example/p/1"), "proven");
    expect(pre.data).toEqual({ name: "Trail shoe", review_count: 128, sku: "TS-4410" });
    expect(pre.trusted).toEqual(["review_count"]);
    expect(pre.remaining).toEqual(["name", "sku"]);
    // The labelled SKU goes to the model as a suggestion to confirm, not as an answer.
    expect(suggestionsOf(pre)).toContainEqual(
      expect.objectContaining({ field: "sku", value: "TS-4410", source: "label" }),
    );
  });

  it("states each value's confidence at most at its source's cross-site reliability", () => {
    const pre = prefill(TREE, loadPage(PAGE, "https://shop.example/p/1"), "proven");
    // JSON-LD states the name outright, but texts read from JSON-LD are right on fewer unseen sites than that.
    expect(pre.evidence.get("/name")!.source).toBe("json-ld");
    expect(pre.evidence.get("/name")!.confidence).toBeLessThanOrEqual(reliabilityOf("json-ld", "text"));
    expect(pre.evidence.get("/sku")!.confidence).toBeLessThanOrEqual(reliabilityOf("label", "text"));
    expect(pre.evidence.get("/review_count")!.confidence).toBeLessThanOrEqual(reliabilityOf("json-ld", "integer"));
  });

  it("in confident mode lets every complete answer stand, whatever its source", () => {
    const pre = prefill(TREE, loadPage(PAGE, "https://shop.example/p/1"), "confident");
    expect(pre.trusted).toEqual(["name", "review_count", "sku"]);
  });
});

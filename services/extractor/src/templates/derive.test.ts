import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../page/page.js";
import { PageIndex } from "../page/page-index.js";
import { deriveLocators, targetsOf } from "./derive.js";
import { elementLocators } from "./element-locators.js";
import { applyLocator, locateElement } from "./locator.js";
import { pageSnapshot } from "./page-snapshot.js";

const field = (schema: Record<string, unknown>) => parseSchema(schema).fields[0]!;

function pageOf(html: string) {
  const page = loadPage(html, "https://shop.example/p/1");
  return new PageIndex(page.$, page.baseUrl);
}

/** Markup where a CSS path finds more than the page's text shows: a price inside a button, names beside others. */
const TRICKY = `<html><body>
  <div class="offer"><button><span class="price">$1</span></button></div>
  <div class="offer extra" itemprop="offers"><span class="price">$12.50</span></div>
  <dl><dt>Price:</dt><dd>$12.50</dd></dl>
  <ul class="tags"><li><a class="tag">Crime</a></li><li><a class="tag">Drama</a></li></ul>
  <p class="by"><b>By:</b> Kim Lee</p>
</body></html>`;

describe("candidate locators from a page snapshot", () => {
  const index = pageOf(TRICKY);
  const cases: [Record<string, unknown>, unknown][] = [
    [{ price_usd: "number" }, 12.5],
    [{ genres: ["string"] }, ["Crime", "Drama"]],
    [{ author: "string" }, "Kim Lee"],
  ];

  it.each(cases)(
    "finds each target's element again as the page's CSS does, and reads there what it read (%o)",
    (schema, value) => {
      const answered = field(schema);
      const snapshot = pageSnapshot(index, [{ field: answered, value }], []);
      const targets = targetsOf(snapshot, answered, value);
      expect(targets.length).toBeGreaterThan(0);
      for (const { element, reading, raw } of targets)
        for (const where of elementLocators(snapshot, element)) {
          expect(locateElement(index, where)).toBe(element);
          expect(applyLocator(index, { ...where, ...reading })?.raw).toEqual(raw);
        }
    },
  );

  it("counts the elements a path finds inside a button, which hold no page text", () => {
    const price = field({ price_usd: "number" });
    const locators = deriveLocators(pageSnapshot(index, [{ field: price, value: 12.5 }], []), price, 12.5);
    // span.price finds the button's price first: the value's is the second.
    expect(locators).toContainEqual(expect.objectContaining({ path: "span.price", index: 1 }));
    expect(locators).toContainEqual(
      expect.objectContaining({ path: 'div.extra.offer[itemprop="offers"] > span.price', index: 0 }),
    );
  });

  it("looks from the first element showing a label, as the locator will on other pages", () => {
    const page = pageOf(
      `<html><body><p><span>Price:</span> <i>see below</i></p><dl><dt>Price:</dt><dd>$12.50</dd></dl></body></html>`,
    );
    const price = field({ price_usd: "number" });
    const locators = deriveLocators(pageSnapshot(page, [{ field: price, value: 12.5 }], []), price, 12.5);
    const fromLabel = locators.find((locator) => locator.label === "Price:")!;
    // From the first "Price:", up to the body, the value's <dd> is the first <dd> after it.
    expect(fromLabel).toMatchObject({ path: "dd", index: 0 });
    expect(fromLabel.up).toBeGreaterThan(1);
    expect(applyLocator(page, fromLabel)?.raw).toBe("12.50");
  });

  it("keeps only the locators of elements whose reading reads the value back", () => {
    const path = field({ path: "string" });
    const page = pageOf(`<html><body><p class="path">/shop/1</p><a class="shop" href="/shop/1">Shop</a></body></html>`);
    const snapshot = pageSnapshot(page, [{ field: path, value: "/shop/1" }], []);
    // The link holds the value as written, but a locator reads it as the absolute address it is.
    expect(targetsOf(snapshot, path, "/shop/1").map(({ raw }) => raw)).toContain("https://shop.example/shop/1");
    const kept = deriveLocators(snapshot, path, "/shop/1");
    expect(kept.length).toBeGreaterThan(0);
    for (const locator of kept) expect(applyLocator(page, locator)?.raw).toBe("/shop/1");
    expect(deriveLocators(snapshot, path, "/shop/2")).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { documentElements, elementsOfTags } from "./document-elements.js";
import { loadPage } from "./page.js";

describe("the document's element index", () => {
  const page = loadPage(
    `<html><head><title>T</title></head><body><table><tr><th>Brand</th><td>Acme</td></tr></table>
     <template><dl><dt>Size</dt><dd>M</dd></dl></template><svg><foreignObject><p>in svg</p></foreignObject></svg>
     <dl><dt>Colour</dt><dd>Red</dd></dl></body></html>`,
    "https://a.example/",
  );

  it("hold every element in document order, as a query from the root finds them (template contents too)", () => {
    expect(documentElements(page.$)).toEqual(page.$("*").toArray());
    expect(documentElements(page.$)).toBe(documentElements(page.$));
  });

  it("find elements by tag name as a selector of those names does", () => {
    expect(elementsOfTags(page.$, new Set(["dt", "tr", "p"]))).toEqual(page.$("dt, tr, p").toArray());
    expect(elementsOfTags(page.$, new Set(["dt"])).map((element) => page.$(element).text())).toEqual([
      "Size",
      "Colour",
    ]);
  });
});

import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { selectorOf } from "./selector.js";

const PAGE = `<html><body>
  <div id="main"><h1 class="title">Trail Shoe</h1>
    <ul class="specs"><li>Light</li><li class="x">Grippy</li><li class="x">Warm</li></ul>
    <span itemprop="price">129.99</span>
    <p class="css-1a2b3c">Generated</p><p class="css-1a2b3c">Twin</p>
  </div>
  <div><p>Loose <b>one</b></p><p>Loose <b>two</b></p></div>
  <div id="item-12345"><i>numbered</i></div>
</body></html>`;

describe("selectorOf", () => {
  const $ = load(PAGE);
  it("selects exactly the element, by its id, itemprop or class when no other element has it", () => {
    expect(selectorOf($("h1")[0]!)).toBe("h1.title");
    expect(selectorOf($("[itemprop=price]")[0]!)).toBe('span[itemprop="price"]');
    expect(selectorOf($("#main")[0]!)).toBe("#main");
  });

  it("falls back to child steps from the nearest ancestor it can name, never numbered or generated names", () => {
    for (const element of [...$("li").toArray(), ...$("b").toArray(), ...$("p").toArray(), $("i")[0]!]) {
      const selector = selectorOf(element);
      expect($(selector).toArray(), selector).toEqual([element]);
      expect(selector).not.toMatch(/12345|css-1a2b3c/);
    }
    expect(selectorOf($("li")[1]!)).toBe("ul.specs > li:nth-of-type(2)");
  });
});

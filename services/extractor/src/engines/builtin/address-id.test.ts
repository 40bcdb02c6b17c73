import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { idInAddress } from "./address-id.js";

const id = (head: string, url: string, ogUrl?: string) =>
  idInAddress(load(`<html><head>${head}</head><body></body></html>`), ogUrl, new URL(url))?.value;

describe("idInAddress", () => {
  it("reads the id a product page's address ends with or passes, from the canonical address first", () => {
    expect(
      id(
        `<link rel="canonical" href="https://shop.example/Shoe-Trail/dp/B000TEST01">`,
        "https://shop.example/dp/B000TEST01?ref=x",
      ),
    ).toBe("B000TEST01");
    expect(id("", "https://shop.example/item/48213.htm")).toBe("48213");
    expect(id("", "https://shop.example/store/12?pid=77881")).toBe("77881");
    expect(id("", "https://shop.example/other", "/deal/9900112")).toBe("9900112");
  });

  it("takes no number out of a slug of words, and no short or wordless segment", () => {
    for (const url of [
      "https://shop.example/trail-shoe-2021.html",
      "https://shop.example/favourite_1409.html",
      "https://shop.example/p/en",
      "https://shop.example/shoes/trail",
      "https://shop.example/2021",
    ]) {
      expect(id("", url)).toBeUndefined();
    }
  });
});

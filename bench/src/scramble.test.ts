import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { scrambleNames } from "./scramble.js";

describe("scrambleNames", () => {
  const page = `<html><body>
    <ul class="product-list"><li class="product card" id="p1"><a class="title" href="#reviews">Boots</a>
    <span class="price">$12</span></li><li class="product card"><span class="price">$9</span></li></ul>
    <label for="qty">Quantity</label><input id="qty"><div id="reviews" aria-labelledby="qty p1">Good</div>
  </body></html>`;
  const $ = load(scrambleNames(page));

  it("leaves no word of a class or id, and keeps text and structure", () => {
    const names = $("[class], [id]")
      .toArray()
      .flatMap((element) => [...($(element).attr("class") ?? "").split(" "), $(element).attr("id") ?? ""])
      .filter(Boolean);
    expect(names.length).toBe(11);
    for (const name of names) expect(name).toMatch(/^x[0-9a-z]+$/);
    expect(names.join(" ")).not.toMatch(/product|card|price|title|qty|reviews/);
    expect($("li").length).toBe(2);
    expect($("body").text()).toBe(load(page)("body").text());
  });

  it("gives the same name the same token, and keeps what refers to an id pointing at it", () => {
    const [first, second] = $("li").toArray();
    expect($(first).attr("class")).toBe($(second).attr("class"));
    expect($(first).find("span").attr("class")).toBe($(second).find("span").attr("class"));
    expect($("label").attr("for")).toBe($("input").attr("id"));
    expect($("a").attr("href")).toBe(`#${$("div").attr("id")}`);
    expect($("div").attr("aria-labelledby")).toBe(`${$("input").attr("id")} ${$(first).attr("id")}`);
  });
});

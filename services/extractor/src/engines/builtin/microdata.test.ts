import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { readItems } from "./microdata.js";

describe("readItems", () => {
  it("reads microdata items with nested items and the attribute each element defines", () => {
    const html = `<div itemscope itemtype="https://schema.org/Product">
        <h1 itemprop="name"> Desk  Lamp </h1>
        <img itemprop="image" src="/lamp.jpg">
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <meta itemprop="priceCurrency" content="USD"><span itemprop="price" content="19.99">$19.99</span>
          <link itemprop="availability" href="https://schema.org/InStock">
        </div>
        <time itemprop="releaseDate" datetime="2024-01-02">Jan 2</time>
        <span itemprop="color">black</span><span itemprop="color">white</span>
      </div>`;
    expect(readItems(load(html))).toEqual([
      {
        "@type": "https://schema.org/Product",
        name: "Desk Lamp",
        image: "/lamp.jpg",
        offers: {
          "@type": "https://schema.org/Offer",
          priceCurrency: "USD",
          price: "19.99",
          availability: "https://schema.org/InStock",
        },
        releaseDate: "2024-01-02",
        color: ["black", "white"],
      },
    ]);
  });

  it("reads RDFa with prefixed property names and ignores prototype keys", () => {
    const html = `<div vocab="https://schema.org/" typeof="Article"><h1 property="schema:headline">Big News</h1>
      <span property="author" typeof="Person"><span property="name">Ann</span></span><b property="__proto__">x</b></div>`;
    const [item] = readItems(load(html));
    expect(item).toEqual({ "@type": "Article", headline: "Big News", author: { "@type": "Person", name: "Ann" } });
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
  });
});

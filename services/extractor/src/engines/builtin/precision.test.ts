import { parseSchema } from "@winnow/platform";
import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { shape } from "../../schema/shape.js";
import { extractBuiltin } from "./index.js";
import { calendarDayInDoubt, utcNearMidnight } from "./utc-date.js";

/** What the service does with the builtin engine: extract, then shape. */
function run(html: string, schema: Record<string, unknown>, url = "https://news.example/story") {
  const tree = parseSchema(schema);
  return shape(tree, extractBuiltin(tree, loadPage(html, url))).data;
}

const ARTICLE = { headline: "string", author: "string", published_date_iso8601: "string" };
const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;

describe("a date read from a UTC instant near midnight", () => {
  it("is no calendar date: the publisher's day may be the one before or after", () => {
    for (const stated of ["Wed, 04 May 2022 02:41:00 GMT", "2018-02-28T20:00:18+00:00", "2022-11-06T23:00:00.000Z"]) {
      const html = `<html><head>${jsonLd({ "@type": "NewsArticle", headline: "Story", datePublished: stated })}</head><body><h1>Story</h1></body></html>`;
      expect(run(html, ARTICLE).published_date_iso8601).toBeNull();
    }
  });

  it("is no calendar date when the page shows Greenwich's day without a time", () => {
    const html = `<html><body><h1>Story</h1><time datetime="2022-11-06T23:00:00.000Z">6.11.22</time></body></html>`;
    expect(run(html, ARTICLE).published_date_iso8601).toBeNull();
  });

  it("stays when the instant is midday, a bare date at midnight, or the page shows its own clock", () => {
    const midday = `<html><head>${jsonLd({ "@type": "NewsArticle", headline: "Story", datePublished: "2022-05-04T12:41:00Z" })}</head><body><h1>Story</h1></body></html>`;
    expect(String(run(midday, ARTICLE).published_date_iso8601).slice(0, 10)).toBe("2022-05-04");
    const bare = `<html><body><h1>Story</h1><time datetime="2020-01-10T00:00:00Z">January 10, 2020</time></body></html>`;
    expect(run(bare, ARTICLE).published_date_iso8601).toBe("2020-01-10");
    const local = `<html><body><h1>Story</h1><time datetime="2019-10-19T21:38:00.000Z">19.10.2019, 23:38 Uhr</time></body></html>`;
    expect(run(local, ARTICLE).published_date_iso8601).toBe("2019-10-19");
  });

  it("reads each way an instant is written in UTC", () => {
    expect(utcNearMidnight("2020-01-07T23:30:16+00:00")).toBe(true);
    expect(utcNearMidnight("2020-01-07T23:30:16+0000")).toBe(true);
    expect(utcNearMidnight("2020-01-07T23:30:16+01:00")).toBe(false);
    expect(utcNearMidnight("2020-01-07")).toBe(false);
    const time = load(`<time datetime="2022-11-06T23:00:00Z">6.11.22</time>`)("time").get(0);
    expect(calendarDayInDoubt("6.11.22", time)).toBe(true);
    expect(calendarDayInDoubt("7.11.22", time)).toBe(false);
  });
});

describe("an author", () => {
  it("loses a leading role that names the site", () => {
    const html = `<html><head><meta property="og:site_name" content="FOCUS Online">${jsonLd({
      "@type": "NewsArticle",
      headline: "Story",
      author: { "@type": "Person", name: "Von FOCUS-Online-Experte Robin Tschöpe" },
    })}</head><body><h1>Story</h1></body></html>`;
    expect(run(html, ARTICLE, "https://www.focus.de/story").author).toBe("Robin Tschöpe");
  });

  it("keeps a two-word name that starts like the site", () => {
    const html = `<html><head>${jsonLd({ "@type": "NewsArticle", headline: "Story", author: "Anna Berg" })}</head><body><h1>Story</h1></body></html>`;
    expect(run(html, ARTICLE, "https://anna.example/story").author).toBe("Anna Berg");
  });
});

describe("a weak author", () => {
  const SITE = `<meta property="og:site_name" content="The Daily Planet">`;
  const post = (author: string, body: string, head = SITE) => `<html><head>${head}${jsonLd({
    "@type": "BlogPosting",
    headline: "Forests and climate",
    author: { "@type": "Person", name: author },
  })}</head><body><div class="post-wrap sidebar-right"><article><h1>Forests and climate</h1>
    <div class="post-content">${body}<p>Indigenous Peoples have managed landscapes for millennia.</p></div></article>
    <aside><p>By Sidebar Person</p></aside></div></body></html>`;
  const url = "https://dailyplanet.example/forests";

  it("yields to the person the article's text credits when it is the site's own name", () => {
    const html = post(
      "The Daily Planet",
      `<p><em>Courtesy of Forests News</em></p><p><em>Written by: <a href="/x">Julie Mollins</a></em></p>`,
    );
    expect(run(html, ARTICLE, url).author).toBe("Julie Mollins");
  });

  it("yields when it is a lone given name the credited name starts with", () => {
    const html = post("Nils", `<p><strong>Eine Kolumne von Nils Pickert</strong></p>`, "");
    expect(run(html, ARTICLE, url).author).toBe("Nils Pickert");
  });

  it("stays without a credit in the article's own text: none, one in related posts, a picture's, another name's", () => {
    expect(run(post("The Daily Planet", ""), ARTICLE, url).author).toBe("The Daily Planet");
    const related = `<div class="related-posts"><p>Written by: Kimberly White</p></div>`;
    expect(run(post("The Daily Planet", related), ARTICLE, url).author).toBe("The Daily Planet");
    expect(run(post("The Daily Planet", `<p>Photo by Jane Doe</p>`), ARTICLE, url).author).toBe("The Daily Planet");
    expect(run(post("Nils", `<p>Von Anna Berg</p>`, ""), ARTICLE, url).author).toBe("Nils");
  });

  it("is the only one that yields: a full name stays whatever the text credits", () => {
    expect(run(post("Kim Lee", `<p>Written by: Julie Mollins</p>`), ARTICLE, url).author).toBe("Kim Lee");
  });
});

describe("the page's entity", () => {
  it("is not a related post's item, however many fields that one fills", () => {
    const post = (author: string, extra = "") =>
      `<article itemscope itemtype="https://schema.org/BlogPosting">${extra}<span itemprop="author">${author}</span></article>`;
    const html = `<html><body>
      ${post("Jake Goulding")}<h1>What is Rust?</h1>
      <div class="related-articles">${post("Ben Popper", `<h2 itemprop="headline">Another post</h2><time itemprop="datePublished" datetime="2019-09-17">Sept 17</time>`)}</div>
      </body></html>`;
    expect(run(html, ARTICLE).author).toBe("Jake Goulding");
  });
});

const PRODUCT = { product_name: "string", sku: "string", brand: "string" };

describe("a product's identifier", () => {
  it("is none of its variants': the same product declared once per size, each with its own sku", () => {
    const sizes = ["38", "39", "40"].map((size) => ({
      "@type": "Product",
      name: "Track sole boots",
      sku: `845189-040-${size}`,
      mpn: `845189-040-${size}`,
      offers: { "@type": "Offer", price: "69.95", priceCurrency: "EUR" },
    }));
    const html = `<html><head>${jsonLd(sizes)}</head><body><h1>Track sole boots</h1></body></html>`;
    expect(run(html, PRODUCT, "https://shop.example/boots").sku).toBeNull();
  });

  it("stays when the page declares the product once, or other products under other names", () => {
    const products = [
      { "@type": "Product", name: "Track sole boots", sku: "845189-040" },
      { "@type": "Product", name: "Leather belt", sku: "112233-001" },
    ];
    const html = `<html><head>${jsonLd(products)}</head><body><h1>Track sole boots</h1></body></html>`;
    expect(run(html, PRODUCT, "https://shop.example/boots").sku).toBe("845189-040");
  });

  it("is the one the shopper sees after its acronym, without a colon, over the data's variant code", () => {
    const html = `<html><head>${jsonLd({ "@type": "Product", name: "Retro console", sku: "MKI6IKW1N4-1" })}</head>
      <body><h1>Retro console</h1><p class="sku">SKU MKI6IKW1N4</p></body></html>`;
    expect(run(html, PRODUCT, "https://shop.example/console").sku).toBe("MKI6IKW1N4");
  });
});

describe("a product's brand", () => {
  // A brand's own shop titles its pages "Product | Brand": a title naming the shop says nothing of whose brand it sells.
  it("stays when the title names it after the product's name, as a brand's own shop does", () => {
    const html = `<html><head><title>Ridgeline Trail Shoe | Northpeak</title>${jsonLd({
      "@type": "Product",
      name: "Ridgeline Trail Shoe",
      brand: { "@type": "Brand", name: "Northpeak" },
    })}</head><body><h1>Ridgeline Trail Shoe</h1></body></html>`;
    expect(run(html, PRODUCT, "https://shop.example/ridgeline").brand).toBe("Northpeak");
  });

  it("stays when the title names it before or within the product's name", () => {
    for (const title of ["Acme Lace-up boots - Shop.example", "Lace-up boots by Acme"]) {
      const html = `<html><head><title>${title}</title>${jsonLd({
        "@type": "Product",
        name: title.includes("by") ? "Lace-up boots by Acme" : "Lace-up boots",
        brand: "Acme",
      })}</head><body><h1>${title.includes("by") ? "Lace-up boots by Acme" : "Lace-up boots"}</h1></body></html>`;
      expect(run(html, PRODUCT, "https://shop.example/boots").brand).toBe("Acme");
    }
  });
});

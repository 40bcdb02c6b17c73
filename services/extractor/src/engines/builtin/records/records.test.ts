import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../../page/page.js";
import { extractBuiltin } from "../index.js";
import { readCount } from "./counts.js";
import { readPrice } from "./prices.js";

/** The engine's answer for a schema of one list field, on a page saved from `url`. */
function records(html: string, schema: Record<string, unknown>, url = "https://shop.example/search?q=x"): unknown {
  const tree = parseSchema(schema);
  return extractBuiltin(tree, loadPage(html, url))[tree.fields[0]!.name];
}

const nav = `<header><nav><ul class="menu"><li><a href="/">Home</a></li><li><a href="/deals">Deals</a></li><li><a href="/help">Help</a></li><li><a href="/account">Account</a></li></ul></nav></header>`;
const footer = `<footer><ul><li><a href="/about">About us</a></li><li><a href="/jobs">Careers</a></li><li><a href="/privacy">Privacy</a></li></ul></footer>`;

describe("records of a listing page", () => {
  it("reads a product grid laid out in rows as one list, by column, with absolute links", () => {
    const card = (i: number) =>
      `<div class="card"><a class="thumb" href="/p/${i}"><img src="/i/${i}.jpg" alt=""></a>
        <h3 class="card-title"><a href="/p/${i}">Desk lamp model ${i}</a></h3>
        <div class="card-price"><span class="was">$${i + 20}.00</span> <span class="now">$${i}.99</span></div></div>`;
    const rows = [0, 1, 2, 3]
      .map((row) => `<div class="row">${[1, 2, 3].map((col) => card(row * 3 + col)).join("")}</div>`)
      .join("");
    const html = `${nav}<main><h1>Lamps</h1><div class="grid">${rows}</div></main>${footer}`;
    const items = records(html, { products: [{ title: "string", price_usd: "number", url: "string" }] }) as Record<
      string,
      unknown
    >[];
    expect(items).toHaveLength(12);
    expect(items[0]).toEqual({ title: "Desk lamp model 1", price_usd: 1.99, url: "https://shop.example/p/1" });
    expect(items[11]).toEqual({ title: "Desk lamp model 12", price_usd: 12.99, url: "https://shop.example/p/12" });
  });

  it("reads table rows, where each column of cells answers one field", () => {
    const row = (rank: number, name: string, city: string, score: string) =>
      `<tr><td>${rank}.</td><td><a href="/team/${rank}">${name}</a></td><td>${city}</td><td>${score} points</td></tr>`;
    const html = `${nav}<table class="standings"><tbody>
      ${row(1, "Red Lions", "Leeds", "1,204")}${row(2, "Blue Whales", "Hull", "998")}${row(3, "Green Owls", "York", "870")}${row(4, "Grey Foxes", "Bath", "12")}
      </tbody></table>${footer}`;
    expect(records(html, { teams: [{ rank: "integer", name: "string", points: "integer" }] })).toEqual([
      { rank: 1, name: "Red Lions", points: 1204 },
      { rank: 2, name: "Blue Whales", points: 998 },
      { rank: 3, name: "Green Owls", points: 870 },
      { rank: 4, name: "Grey Foxes", points: 12 },
    ]);
  });

  it("reads a record split across sibling rows (a title row and its details row), in a news table", () => {
    const story = (i: number, title: string, points: number, user: string, comments: number) =>
      `<tr class="story"><td class="rank">${i}.</td><td class="titleline"><a href="https://news${i}.example/a">${title}</a> <span class="site">(news${i}.example)</span></td></tr>
       <tr><td></td><td class="subtext"><span class="score">${points} points</span> by <a class="user" href="/user?id=${user}">${user}</a> | <a href="/item?id=${i}">${comments} comments</a></td></tr>
       <tr class="spacer" style="height:5px"></tr>`;
    const html = `<table><tr><td><a href="/">News</a> | <a href="/new">new</a> | <a href="/ask">ask</a></td></tr></table>
      <table class="stories"><tbody>${story(1, "A faster way to parse HTML", 120, "kim", 45)}${story(2, "Notes on list segmentation", 98, "lee", 12)}
      ${story(3, "Why tables still matter", 77, "ana", 3)}${story(4, "The quiet web", 5, "bo", 0)}<tr><td></td><td><a href="/news?p=2">More</a></td></tr></tbody></table>`;
    const schema = {
      stories: [{ title: "string", url: "string", points: "integer", user: "string", comments: "integer" }],
    };
    expect(records(html, schema, "https://news.example/")).toEqual([
      { title: "A faster way to parse HTML", url: "https://news1.example/a", points: 120, user: "kim", comments: 45 },
      { title: "Notes on list segmentation", url: "https://news2.example/a", points: 98, user: "lee", comments: 12 },
      { title: "Why tables still matter", url: "https://news3.example/a", points: 77, user: "ana", comments: 3 },
      { title: "The quiet web", url: "https://news4.example/a", points: 5, user: "bo", comments: 0 },
    ]);
  });

  it("reads records that hold lists of their own, and lists of sections as one list", () => {
    const book = (title: string, author: string, tags: string[]) =>
      `<article class="book"><h2><a href="/b/${title.length}">${title}</a></h2><p class="byline">by <span class="author">${author}</span></p>
        <ul class="tags">${tags.map((tag) => `<li><a href="/t/${tag}">${tag}</a></li>`).join("")}</ul></article>`;
    const section = (name: string, books: string) =>
      `<section class="shelf"><h2 class="shelf-name">${name}</h2><div class="books">${books}</div></section>`;
    const html = `${nav}<div id="content">${section("Fiction", book("The Long Road", "Ann Lee", ["travel", "family"]) + book("Salt and Stone", "Bo Kim", ["sea"]))}
      ${section("History", book("Rivers of Empire", "Cy Park", ["rivers", "trade", "maps"]) + book("The First Cities", "Di Moss", ["cities"]))}</div>${footer}`;
    expect(records(html, { books: [{ title: "string", author: "string", tags: ["string"] }] })).toEqual([
      { title: "The Long Road", author: "Ann Lee", tags: ["travel", "family"] },
      { title: "Salt and Stone", author: "Bo Kim", tags: ["sea"] },
      { title: "Rivers of Empire", author: "Cy Park", tags: ["rivers", "trade", "maps"] },
      { title: "The First Cities", author: "Di Moss", tags: ["cities"] },
    ]);
  });

  it("keeps ads inside the list as records marked as ads, and leaves out a banner of another shape", () => {
    const result = (i: number, label = "") =>
      `<li class="result">${label}<h3><a href="https://site${i}.example/">Result number ${i} about lamps</a></h3>
        <p class="snippet">A page about lamps and how to choose one, number ${i} of the results shown here.</p></li>`;
    const banner = `<li class="promo-banner"><img src="/b.png" alt="Big sale"><div><b>Big sale</b> on everything this week</div></li>`;
    const html = `${nav}<ol id="results">${result(1, `<span class="label">Sponsored</span>`)}${result(2)}${banner}${result(3)}${result(4, "<span>Ad</span>")}${result(5)}</ol>${footer}`;
    const items = records(html, {
      results: [{ title: "string", url: "string", snippet: "string", is_ad: "boolean" }],
    }) as Record<string, unknown>[];
    expect(items.map((item) => [item.title, item.is_ad])).toEqual([
      ["Result number 1 about lamps", true],
      ["Result number 2 about lamps", false],
      ["Result number 3 about lamps", false],
      ["Result number 4 about lamps", true],
      ["Result number 5 about lamps", false],
    ]);
    expect(items[1]).toMatchObject({
      url: "https://site2.example/",
      snippet: "A page about lamps and how to choose one, number 2 of the results shown here.",
    });
  });

  it("chooses the main list over navigation, a related box and a pager", () => {
    const job = (i: number) =>
      `<div class="job"><h2 class="job-title"><a href="/jobs/${i}">Engineer, team ${i}</a></h2><div class="company">Acme ${i} Ltd</div>
        <div class="location">Springfield</div><div class="posted">Posted 2024-03-0${i}</div></div>`;
    const related = (i: number) =>
      `<li class="rel"><a href="/jobs/r${i}">Related role ${i}</a> <span class="company">Other ${i}</span></li>`;
    const html = `${nav}<div class="layout"><div class="main">${[1, 2, 3, 4, 5, 6].map(job).join("")}
      <div class="pagination"><a href="?p=1">1</a><a href="?p=2">2</a><a href="?p=3">3</a><a href="?p=4">4</a></div></div>
      <aside><h3>Related jobs</h3><ul>${[1, 2, 3].map(related).join("")}</ul></aside></div>${footer}`;
    const items = records(html, {
      jobs: [{ job_title: "string", company: "string", location: "string", date_posted: "string" }],
    }) as Record<string, unknown>[];
    expect(items).toHaveLength(6);
    expect(items[5]).toEqual({
      job_title: "Engineer, team 6",
      company: "Acme 6 Ltd",
      location: "Springfield",
      date_posted: "Posted 2024-03-06",
    });
  });

  it("of two lists on one page, answers the one whose records hold the item's fields", () => {
    const product = (i: number) =>
      `<li class="item"><a href="/p/${i}">Garden chair ${i}</a><span class="price">€${i}9,00</span><span class="rating" aria-label="${i % 5}.5 out of 5 stars"></span></li>`;
    const article = (i: number) =>
      `<li class="post"><a href="/blog/${i}">How to care for garden furniture, part ${i}</a><p>Oil it twice a year and keep it dry in winter; part ${i} of our series.</p></li>`;
    const html = `${nav}<section><h2>Posts</h2><ul>${[1, 2, 3, 4].map(article).join("")}</ul></section>
      <section><h2>Shop</h2><ul>${[1, 2, 3].map(product).join("")}</ul></section>${footer}`;
    expect(records(html, { products: [{ name: "string", price_eur: "number", rating: "number" }] })).toEqual([
      { name: "Garden chair 1", price_eur: 19, rating: 1.5 },
      { name: "Garden chair 2", price_eur: 29, rating: 2.5 },
      { name: "Garden chair 3", price_eur: 39, rating: 3.5 },
    ]);
  });

  it("reads a list of one record", () => {
    const html = `${nav}<h1>Results for "lamp"</h1><ol class="results"><li><h3><a href="/p/9">Brass reading lamp</a></h3><span class="price">$49.00</span>
      <p class="description">A heavy brass lamp for reading, with a warm bulb and a long cord.</p></li></ol>${footer}`;
    expect(records(html, { results: [{ title: "string", price_usd: "number", description: "string" }] })).toEqual([
      {
        title: "Brass reading lamp",
        price_usd: 49,
        description: "A heavy brass lamp for reading, with a warm bulb and a long cord.",
      },
    ]);
  });

  it("reads every record of a list of 500", () => {
    const row = (i: number) =>
      `<div class="listing"><a class="name" href="/l/${i}">Flat ${i} near the park</a><span class="price">$${1000 + i}</span><span class="beds">${(i % 4) + 1} beds</span></div>`;
    const html = `${nav}<div class="listings">${Array.from({ length: 500 }, (_, i) => row(i + 1)).join("")}</div>${footer}`;
    const items = records(html, { listings: [{ name: "string", price_usd: "number", beds: "integer" }] }) as Record<
      string,
      unknown
    >[];
    expect(items).toHaveLength(500);
    expect(items[0]).toEqual({ name: "Flat 1 near the park", price_usd: 1001, beds: 2 });
    expect(items[499]).toEqual({ name: "Flat 500 near the park", price_usd: 1500, beds: 1 });
  });

  it("answers null where a record lacks a column's value, never another column's", () => {
    const course = (title: string, price: string, lectures: string) =>
      `<div class="course"><a class="title" href="/c/${title.length}">${title}</a>${price ? `<span class="price">${price}</span>` : ""}<span class="meta">${lectures}</span></div>`;
    const html = `${nav}<div class="courses">${course("Intro to statistics", "C$19.99", "12 lectures")}${course("Free course on maps", "", "7 lectures")}${course("Python for analysts", "C$24.50", "40 lectures")}</div>${footer}`;
    expect(records(html, { courses: [{ title: "string", price_cad: "number", lectures: "integer" }] })).toEqual([
      { title: "Intro to statistics", price_cad: 19.99, lectures: 12 },
      { title: "Free course on maps", price_cad: null, lectures: 7 },
      { title: "Python for analysts", price_cad: 24.5, lectures: 40 },
    ]);
  });

  it("leaves the field to structured data where it holds the list", () => {
    const data = {
      "@context": "https://schema.org",
      "@type": "ItemList",
      itemListElement: [1, 2].map((i) => ({
        "@type": "ListItem",
        position: i,
        item: { "@type": "Product", name: `Declared ${i}` },
      })),
    };
    const html = `<script type="application/ld+json">${JSON.stringify(data)}</script><ul class="products">${[1, 2, 3].map((i) => `<li><a href="/p/${i}">Shown ${i}</a></li>`).join("")}</ul>`;
    expect(records(html, { products: [{ name: "string" }] })).toEqual([{ name: "Declared 1" }, { name: "Declared 2" }]);
  });

  it("reads replies nested in comments as records of their own, in page order", () => {
    const comment = (id: number, user: string, text: string, replies = "") =>
      `<div class="comment"><div class="meta"><a class="author" href="/u/${user}">${user}</a> <span class="score">${id * 3} points</span> <time>${id} hours ago</time></div>
        <div class="body"><p>${text}</p></div><a href="#reply">reply</a>${replies ? `<div class="children">${replies}</div>` : ""}</div>`;
    const thread =
      comment(
        1,
        "alice",
        "The first comment on the story, at the top.",
        comment(2, "bob", "A reply to alice, one level down.", comment(3, "carol", "A reply to bob, two levels down.")),
      ) + comment(4, "dan", "A second comment at the top, without replies.");
    const html = `${nav}<article><h1>Story</h1><p>The story itself, long enough to be read as its body.</p></article><section class="comments">${thread}</section>${footer}`;
    expect(
      records(html, { comments: [{ author: "string", text: "string", points: "integer", posted: "string" }] }),
    ).toEqual([
      { author: "alice", text: "The first comment on the story, at the top.", points: 3, posted: "1 hours ago" },
      { author: "bob", text: "A reply to alice, one level down.", points: 6, posted: "2 hours ago" },
      { author: "carol", text: "A reply to bob, two levels down.", points: 9, posted: "3 hours ago" },
      { author: "dan", text: "A second comment at the top, without replies.", points: 12, posted: "4 hours ago" },
    ]);
  });

  it("reads two numbers from one text by the words after them, and names a table's columns by its header", () => {
    const row = (i: number, title: string, author: string, rating: string, ratings: string) =>
      `<tr><td>${i}</td><td><a class="bookTitle" href="/b/${i}">${title}</a> <span class="by">by</span> <a class="authorName" href="/a/${i}">${author}</a>
        <div><span class="minirating">${rating} avg rating — ${ratings} ratings</span></div></td><td>${1990 + i}</td></tr>`;
    const html = `${nav}<table><thead><tr><th>#</th><th>Book</th><th>Year</th></tr></thead><tbody>${row(1, "The Long Road", "Ann Lee", "4.34", "7,891,234")}${row(2, "Salt and Stone", "Bo Kim", "3.66", "612")}${row(3, "Rivers", "Cy Park", "4.01", "45,001")}</tbody></table>${footer}`;
    expect(
      records(html, {
        books: [{ title: "string", author: "string", avg_rating: "number", ratings_count: "integer", year: "integer" }],
      }),
    ).toEqual([
      { title: "The Long Road", author: "Ann Lee", avg_rating: 4.34, ratings_count: 7891234, year: 1991 },
      { title: "Salt and Stone", author: "Bo Kim", avg_rating: 3.66, ratings_count: 612, year: 1992 },
      { title: "Rivers", author: "Cy Park", avg_rating: 4.01, ratings_count: 45001, year: 1993 },
    ]);
  });

  it("does not answer reviews from a carousel of related products", () => {
    const tile = (i: number) =>
      `<div class="product-tile"><a href="/p/${i}"><span class="name">Related lamp ${i}</span></a><div class="stars" aria-label="4.${i} out of 5 stars"></div>
        <span class="price">$${i}9.99</span><p class="blurb">A compact lamp with a warm light and a flexible arm, model ${i}.</p></div>`;
    const html = `${nav}<main><h1>Brass reading lamp</h1><span class="price">$49.00</span><section class="reviews"><h2>Reviews</h2><p>No reviews yet.</p></section>
      <section class="recommendations"><h2>Customers also viewed</h2><div class="carousel">${[1, 2, 3, 4].map(tile).join("")}</div></section></main>${footer}`;
    expect(records(html, { reviews: [{ author: "string", rating: "number", text: "string" }] })).toBeNull();
    expect(records(html, { related: [{ name: "string", price_usd: "number", rating: "number" }] })).toHaveLength(4);
  });

  it("leaves out a row of the list that is no record (a 'load more' link) and a value's own label", () => {
    const item = (i: number) =>
      `<li class="item"><h3><a href="/jobs/${i}">Welder, shift ${i}</a></h3><div class="company">Company: Forge ${i} Ltd</div><div class="salary">£${i}0,000 a year</div><p>Posted ${i} days ago</p></li>`;
    const more = `<li class="item"><h3><a href="/jobs?page=2">Load more jobs</a></h3></li>`;
    const html = `${nav}<ul class="jobs">${[1, 2, 3, 4].map(item).join("")}${more}</ul>${footer}`;
    const items = records(html, {
      jobs: [{ title: "string", company: "string", salary: "string", posted: "string" }],
    }) as Record<string, unknown>[];
    expect(items).toHaveLength(4);
    expect(items[3]).toEqual({
      title: "Welder, shift 4",
      company: "Forge 4 Ltd",
      salary: "£40,000 a year",
      posted: "Posted 4 days ago",
    });
  });

  it("answers null rather than a list that does not hold the item's fields", () => {
    const html = `${nav}<article><h1>About our shop</h1><p>We sell lamps.</p><p>Since 1990.</p></article>${footer}`;
    expect(records(html, { products: [{ title: "string", price_usd: "number", rating: "number" }] })).toBeNull();
  });
});

describe("values as lists write them", () => {
  it("reads prices in the field's currency and counts with separators and units", () => {
    expect(readPrice("C$19", { subject: ["price"], currency: "CAD" })).toBe(19);
    expect(readPrice("$11.99 –", { subject: ["price"], currency: "USD" })).toBe(11.99);
    expect(readPrice("19,99 €", { subject: ["price"], currency: "EUR" })).toBe(19.99);
    expect(readPrice("19,99 €", { subject: ["price"], currency: "USD" })).toBeUndefined();
    expect(readCount("1,145 points")).toBe(1145);
    expect(readCount("(299 ratings)")).toBe(299);
    expect(readCount("92.284")).toBe(92284);
    expect(readCount("1.2k")).toBe(1200);
    expect(readCount("4,7 von 5")).toBeUndefined();
  });
});

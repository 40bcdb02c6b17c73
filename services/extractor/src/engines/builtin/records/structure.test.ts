/**
 * Lists read by their structure where class names say nothing: hashed or
 * utility classes (as CSS-in-JS and utility-first sites write them), so
 * that columns come from the records' repeated shape, their values' shapes
 * and the labels a reader sees.
 */
import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../../page/page.js";
import { extractBuiltin } from "../index.js";

function records(html: string, schema: Record<string, unknown>, url = "https://shop.example/search?q=x"): unknown {
  const tree = parseSchema(schema);
  return extractBuiltin(tree, loadPage(html, url))[tree.fields[0]!.name];
}

const games = [
  ["Harbor Lights", "14 Oct, 2016", "CDN$ 21.99"],
  ["Moss and Stone", "1 Jun, 2015", "CDN$ 5.49"],
  ["Night Ferry", "3 Mar, 2017", "CDN$ 11.00"],
  ["Paper Orchard", "22 Aug, 2018", "CDN$ 7.25"],
];

describe("lists read by structure, with meaningless class names", () => {
  it("reads a card that is one link: its first line is the title, not the whole card", () => {
    const card = ([title, date, price]: string[], i: number) =>
      `<a class="k3x9q" href="/app/${i}"><div class="zz81a"><img src="/c/${i}.jpg"></div><div class="p0qv7">
        <div class="m2kd1"><span class="t7w2e">${title}</span><p><span class="w1u4"></span></p></div>
        <div class="r5s0b">${date}</div><div class="e4nq2"><div class="f8hh1">${price}</div></div></div></a>`;
    const html = `<main><div class="y6c3j">${games.map(card).join("")}</div></main>`;
    expect(records(html, { games: [{ title: "string", release_date: "string", price: "string" }] })).toEqual(
      games.map(([title, release_date, price]) => ({ title, release_date, price })),
    );
  });

  it("takes the title from a link around a heading over a longer link, and a field from the fragment its link names", () => {
    const courses = [
      ["Spreadsheets from scratch", "Ana Ruiz", "Data analyst at a bank"],
      ["Podcasting for nurses", "Joe Miller", "Podcaster, author and critical care nurse"],
      ["Mobile apps in a week", "Grant Kim", "Professional app developer"],
    ];
    const card = ([title, name, job]: string[], i: number) =>
      `<li class="a1b2"><a class="c3d4" href="/c/${i}/"><h1>${title}</h1></a>
        <p><a class="e5f6" href="/c/${i}/#instructor"><span>${name}</span><span> • ${job}</span></a></p>
        <div class="g7h8"><span class="i9j0">${10 + i} lectures</span></div></li>`;
    const html = `<main><ul class="k1l2">${courses.map(card).join("")}</ul></main>`;
    expect(records(html, { courses: [{ course_title: "string", instructor: "string", lectures: "number" }] })).toEqual(
      courses.map(([title, name], i) => ({ course_title: title, instructor: name, lectures: 10 + i })),
    );
  });

  it("reads a price split across elements, and takes the lower of two prices as the one to pay", () => {
    const items = [
      ["Desk lamp", "18", "99", "$24.00"],
      ["Floor lamp", "42", "50", "$60.00"],
      ["Wall light", "9", "05", "$12.50"],
    ];
    const card = ([title, whole, cents, was]: string[], i: number) =>
      `<div class="u1 u2"><a class="u3" href="/p/${i}">${title}</a><ul class="u4">
        <li class="u5">${was}</li><li class="u5"><span>$</span><span>${whole}</span><sup>${cents}</sup></li>
        <li class="u6">Save 20%</li></ul></div>`;
    const html = `<main><div class="u7">${items.map(card).join("")}</div></main>`;
    expect(records(html, { products: [{ title: "string", price_usd: "number" }] })).toEqual(
      items.map(([title, whole, cents]) => ({ title, price_usd: Number(`${whole}.${cents}`) })),
    );
  });

  it("does not take a price per unit, or a lower price beside one record's price, for the price", () => {
    const items = [
      ["Cat food, 1 kg", "€2.95", "(€2.95/kg)"],
      ["Cat food, 400 g", "€19.77", "(€49.43/kg)"],
      ["Cat treats, 200 g", "€3.10", "(€15.50/kg)"],
    ];
    const card = ([title, price, unit]: string[], i: number) =>
      `<div class="s1"><h2><a href="/p/${i}">${title}</a></h2><div class="s2"><span class="s3">${price}</span>
        <span class="s4">${unit}</span>${i === 1 ? `<span>€17.67</span>` : ""}</div></div>`;
    const html = `<main><div class="s5">${items.map(card).join("")}</div></main>`;
    expect(records(html, { products: [{ title: "string", price_eur: "number" }] })).toEqual(
      items.map(([title, price]) => ({ title, price_eur: Number(price!.slice(1)) })),
    );
  });

  it("reads fields by the labels a reader sees: a list after 'Tags:', a name after 'by', a value after 'Location:'", () => {
    const jobs = [
      ["Night nurse", "Ana Ruiz", "Leeds", ["health", "nights"]],
      ["Line cook", "Joe Miller", "York", ["food"]],
      ["Bus driver", "Grant Kim", "Hull", ["transport", "shifts", "union"]],
    ] as const;
    const card = ([title, poster, city, tags]: (typeof jobs)[number], i: number) =>
      `<div class="w1"><h3><a href="/j/${i}">${title}</a></h3><span class="w2">by <a href="/u/${i}">${poster}</a></span>
        <div class="w3"><span class="w4">Location:</span> <span class="w5">${city}</span></div>
        <div class="w6">Tags: ${tags.map((tag) => `<a class="w7" href="/t/${tag}">${tag}</a>`).join(" ")}</div></div>`;
    const html = `<main><div class="w8">${jobs.map(card).join("")}</div></main>`;
    const schema = { jobs: [{ title: "string", author: "string", location: "string", tags: ["string"] }] };
    expect(records(html, schema)).toEqual(
      jobs.map(([title, author, location, tags]) => ({ title, author, location, tags: [...tags] })),
    );
  });

  it("reads the price from the place that shows one on most records, over an old price's place that is mostly empty", () => {
    const items = [
      ["Phone A", "", "$399.99 (1 offer)"],
      ["Phone B", "$199.99", "$189.99 (4 offers)"],
      ["Phone C", "", "$249.00 (2 offers)"],
      ["Phone D", "", "$99.50 (1 offer)"],
    ];
    const card = ([title, was, price]: string[], i: number) =>
      `<div class="v1"><a class="v2" href="/p/${i}">${title}</a><ul class="v3"><li class="v4">${was}</li><li class="v5">${price}</li></ul></div>`;
    const html = `<main><div class="v6">${items.map(card).join("")}</div></main>`;
    expect(records(html, { products: [{ title: "string", price_usd: "number" }] })).toEqual(
      items.map(([title, , price]) => ({ title, price_usd: Number(price!.slice(1).split(" ")[0]) })),
    );
  });

  it("keeps generated class names with digits among their letters: results alike by class, some with sitelinks, are one list", () => {
    const sitelinks = `<ul><li><h3><a href="/a">Docs</a></h3><p><span>Read the docs</span></p></li></ul>
      <table><tbody><tr><td>Pricing</td></tr></tbody></table><div><span><b>4.5</b></span></div>`;
    const result = (i: number) =>
      `<li class="css-8k2m1x"><h2><a href="https://site${i}.example/">Result ${i} title</a></h2>
        <div class="css-3j9q0w"><cite>site${i}.example</cite><p>What page ${i} says about the query, in a sentence.</p></div>
        ${i % 3 === 0 ? sitelinks : ""}</li>`;
    const html = `<main><ol class="css-1v7b2z">${[0, 1, 2, 3, 4, 5].map(result).join("")}</ol></main>`;
    const found = records(html, { results: [{ title: "string", url: "string", snippet: "string" }] });
    expect((found as { title: string }[]).map(({ title }) => title)).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => `Result ${i} title`),
    );
  });

  it("reads a rating and a count from their own elements inside one labelled link, and a price written in two places", () => {
    const items = [
      ["Video doorbell", "4.6", "132,223", "$59.99", true],
      ["Smart plug", "4.7", "527,720", "$12.99", false],
      ["Strip lights", "4.5", "48,878", "$19.99", true],
      ["Echo speaker", "4.7", "901,332", "$49.99", false],
    ] as const;
    const card = ([title, rating, count, price, offers]: (typeof items)[number], i: number) =>
      `<div class="g7"><a class="h1x" href="/dp/${i}"><span><div class="c4z">${title}</div></span></a>
        <div class="r2"><a class="h1x" title="${rating} out of 5 stars" href="/reviews/${i}"><i class="s9"><span class="q1">${rating} out of 5 stars</span></i> <span class="n3">${count}</span></a></div>
        <div class="r2">${offers ? `<a class="h1x" href="/dp/${i}"><span class="o5">1 offer from <span class="p8">${price}</span></span></a>` : `<span class="p8">${price}</span>`}</div></div>`;
    const html = `<main><div class="k0">${items.map(card).join("")}</div></main>`;
    const schema = { products: [{ title: "string", price_usd: "number", rating: "number", review_count: "number" }] };
    expect(records(html, schema)).toEqual(
      items.map(([title, rating, count, price]) => ({
        title,
        price_usd: Number(price.slice(1)),
        rating: Number(rating),
        review_count: Number(count.replace(/,/g, "")),
      })),
    );
  });

  it("reads a table whose header row is a first row of plain cells, without classes or <th>", () => {
    const rows = [
      ["Oak desk", "Leeds", "4", "$120.00"],
      ["Pine shelf", "York", "11", "$45.50"],
      ["Elm table", "Hull", "2", "$310.00"],
    ];
    const row = (cells: string[]) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join("")}</tr>`;
    const html = `<main><table><tbody>${row(["Item", "Warehouse", "Stock", "Price"])}${rows.map(row).join("")}</tbody></table></main>`;
    const schema = { items: [{ item: "string", warehouse: "string", stock: "integer", price: "number" }] };
    expect(records(html, schema)).toEqual(
      rows.map(([item, warehouse, stock, price]) => ({
        item,
        warehouse,
        stock: Number(stock),
        price: Number(price!.slice(1)),
      })),
    );
  });

  it("reads a utility-class page, where every column has the same classes, by labels, icons' names and value shapes", () => {
    const jobs = [
      ["Night nurse", "Acme Health", "Leeds", "$41,000"],
      ["Line cook", "Blue Door Kitchen", "York", "$28,500"],
      ["Bus driver", "City Transit", "Hull", "$33,000"],
    ];
    const card = ([title, company, city, salary]: string[], i: number) =>
      `<li class="flex flex-col gap-2 p-4 border-b"><h3 class="text-lg font-semibold"><a class="hover:underline" href="/jobs/${i}">${title}</a></h3>
        <div class="flex gap-4 text-sm text-gray-600"><a class="text-sm text-gray-600" href="/companies/${company.toLowerCase().replace(/ /g, "-")}">${company}</a>
        <span class="text-sm text-gray-600"><svg class="h-4 w-4" aria-label="Location"></svg>${city}</span>
        <span class="text-sm text-gray-600">${salary}</span></div></li>`;
    const html = `<main><ul class="divide-y">${jobs.map(card).join("")}</ul></main>`;
    const schema = { jobs: [{ title: "string", company: "string", location: "string", salary: "string" }] };
    expect(records(html, schema)).toEqual(
      jobs.map(([title, company, location, salary]) => ({ title, company, location, salary })),
    );
  });
});

import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../../page/page.js";
import { extractBuiltin } from "../index.js";

/** The engine's answer for a schema of one list field, on a page saved from `url`. */
function records(html: string, schema: Record<string, unknown>, url = "https://list.example/all"): unknown {
  const tree = parseSchema(schema);
  return extractBuiltin(tree, loadPage(html, url))[tree.fields[0]!.name];
}

describe("records whose fields only a general rule reads right", () => {
  it("takes a record's own link, not the link every record shares, even where its text is a generic verb", () => {
    const card = (i: number) =>
      `<div class="tile"><h4>Opening ${i}</h4><p class="org">Firm ${i}</p>
       <div class="actions"><a href="https://partner.example/about">More</a> <a href="/openings/${i}">View</a></div></div>`;
    const html = `<main><h1>Openings</h1><section>${[1, 2, 3, 4].map(card).join("")}</section></main>`;
    const items = records(html, { openings: [{ title: "string", org: "string", url: "string" }] }) as unknown[];
    expect(items).toHaveLength(4);
    expect(items[2]).toEqual({ title: "Opening 3", org: "Firm 3", url: "https://list.example/openings/3" });
  });

  it("maps a table's cells to its header by column, spans counted, and lets each header say what its column holds", () => {
    // The first header spans an icon cell and the title cell; the author's link is marked up as a "name".
    const row = (i: number) =>
      `<tr><td><img src="/i.gif" alt=""></td><td><a href="/thread/${i}">Question number ${i} about gears</a></td>
       <td><span class="num">${i * 3}</span></td><td><span class="name"><a href="/member/${i}">member${i}</a></span></td>
       <td><span class="num">${i * 100}</span></td></tr>`;
    const html = `<table class="board"><tr><th colspan="2">Threads</th><th>Replies</th><th>Author</th><th>Views</th></tr>
      ${[1, 2, 3, 4].map(row).join("")}</table>`;
    const schema = {
      threads: [{ title: "string", url: "string", author: "string", replies: "integer", views: "integer" }],
    };
    expect((records(html, schema) as unknown[])[1]).toEqual({
      title: "Question number 2 about gears",
      url: "https://list.example/thread/2",
      author: "member2",
      replies: 6,
      views: 200,
    });
  });

  it("reads a date from its own line, not with who is named on the next one, under a header without the form word", () => {
    const row = (i: number) =>
      `<tr><td><a href="/t/${i}">Topic ${i} on brakes</a></td>
       <td><span class="meta">Tue Mar 0${i}, 2011 9:1${i} pm<br><a href="/u/${i}">poster${i}</a></span></td></tr>`;
    const html = `<table><tr><th>Title</th><th>Last reply</th></tr>${[1, 2, 3].map(row).join("")}</table>`;
    const items = records(html, { topics: [{ title: "string", last_reply_time: "string" }] }) as unknown[];
    expect(items[0]).toEqual({ title: "Topic 1 on brakes", last_reply_time: "Tue Mar 01, 2011 9:11 pm" });
  });

  it("reads a rating a star widget states only in its class, and a yes/no stated in words that name the field", () => {
    const stars = ["Two", "Five", "One"];
    const item = (i: number) =>
      `<li><h3><a href="/b/${i}">Volume ${i}</a></h3><div class="stars ${stars[i]}"><i></i><i></i><i></i></div>
       <p class="cost">$1${i}.50</p><p class="avail"><i class="icon"></i> ${i === 2 ? "Out of stock" : "In stock"}</p></li>`;
    const html = `<main><ul class="shelf">${[0, 1, 2].map(item).join("")}</ul></main>`;
    const schema = { volumes: [{ title: "string", price: "number", rating: "integer", in_stock: "boolean" }] };
    expect(records(html, schema)).toEqual([
      { title: "Volume 0", price: 10.5, rating: 2, in_stock: true },
      { title: "Volume 1", price: 11.5, rating: 5, in_stock: true },
      { title: "Volume 2", price: 12.5, rating: 1, in_stock: false },
    ]);
  });
});

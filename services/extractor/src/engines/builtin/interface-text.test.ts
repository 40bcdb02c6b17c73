import { parseSchema } from "@winnow/platform";
import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { nameHints } from "../../schema/field-names.js";
import { shape } from "../../schema/shape.js";
import { extractBuiltin } from "./index.js";
import { failsName, isInterfaceText, isLinkList, withoutInterfaceTail } from "./interface-text.js";

describe("interface text", () => {
  it("tells controls, placeholders and pagination from content", () => {
    for (const text of [
      "(more)",
      "more",
      "Show more",
      "Read more…",
      "View all reviews",
      "Loading...",
      "Next »",
      "1 2 3 Next",
      "Share",
      "…",
    ])
      expect(isInterfaceText(text), text).toBe(true);
    for (const text of [
      "Moreno Valley",
      "Showtime",
      "Next Level Apparel",
      "Share the Love",
      "27 City / 36 Hwy",
      "R",
      "Jane Doe",
    ])
      expect(isInterfaceText(text), text).toBe(false);
  });

  it("cuts a control after a value, and only a control", () => {
    const $ = load(`<div id="v">3506B001<br><a href="/b">View other products from Canon</a></div>`);
    expect(withoutInterfaceTail("3506B001 View other products from Canon", $("#v").get(0)!)).toBe("3506B001");
    expect(withoutInterfaceTail("3506B001 View other products from Canon")).toBe(
      "3506B001 View other products from Canon",
    );
    expect(withoutInterfaceTail("US-FL-Miami Loading Map...")).toBe("US-FL-Miami");
    expect(withoutInterfaceTail("24 city / 32 hwy (more)")).toBe("24 city / 32 hwy");
    expect(withoutInterfaceTail("How to Show More Love")).toBe("How to Show More Love");
    expect(withoutInterfaceTail("Tell Me More")).toBe("Tell Me More");
  });

  it("tells a list of links from a value that holds a link", () => {
    const $ =
      load(`<div id="menu"><a href="/n">News</a><a href="/t">Team Report</a><a href="/b">Blogs</a><a href="/s">Scores &amp; Schedule</a></div>
      <div id="one">Miami <a href="/dolphins">Dolphins</a></div>`);
    expect(isLinkList($("#menu").get(0)!)).toBe(true);
    expect(isLinkList($("#one").get(0)!)).toBe(false);
  });
});

describe("failsName", () => {
  it("refuses a number-named text without a number and a person written as an address slug", () => {
    expect(failsName("Call for details", nameHints("fuel_economy"), undefined)).toBe(true);
    expect(failsName("24 city / 32 hwy", nameHints("fuel_economy"), undefined)).toBe(false);
    expect(failsName("sarah-indra", nameHints("author"), undefined)).toBe(true);
    expect(failsName("Sarah Indra", nameHints("author"), undefined)).toBe(false);
    expect(failsName("pg-13", nameHints("mpaa_rating"), undefined)).toBe(false);
  });
});

describe("the builtin engine answers null rather than interface text", () => {
  const run = (html: string, schema: Record<string, unknown>) => {
    const tree = parseSchema(schema);
    return shape(tree, extractBuiltin(tree, loadPage(html, "https://site.example/page"))).data;
  };

  it("drops controls from labelled values and answers null where only a control or a menu is left", () => {
    const html = `<html><body><h1>Some page</h1><table>
      <tr><th>Fuel economy</th><td><a href="/mpg">(more)</a></td></tr>
      <tr><th>Author</th><td><a href="/authors">more</a></td></tr>
      <tr><th>Location</th><td>US-FL-Miami <span>Loading Map...</span></td></tr>
      <tr><th>Part number</th><td>3506B001<br><a href="/b">View other products from Canon</a></td></tr>
      <tr><th>Team</th><td><a href="/n">News</a><a href="/t">Team Report</a><a href="/b">Blogs</a><a href="/s">Scores</a></td></tr>
      <tr><th>Height</th><td>Unknown</td></tr>
    </table></body></html>`;
    expect(
      run(html, {
        fuel_economy: "string",
        author: "string",
        location: "string",
        part_number: "string",
        team: "string",
        height: "string",
      }),
    ).toEqual({
      fuel_economy: null,
      author: null,
      location: "US-FL-Miami",
      part_number: "3506B001",
      team: null,
      height: null,
    });
  });
});

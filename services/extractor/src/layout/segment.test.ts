import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { labelledRows } from "../../../../test/support/list-pages.js";
import { segmentRecords } from "./segment.js";

/**
 * The records segmentation finds on a page, and the array elements its searches scanned (every `includes` and
 * `indexOf` counted by the length it searches): a search of a growing array per part makes the scan quadratic.
 */
function segmentCounted(html: string): { records: number; scanned: number } {
  const root = load(html).root()[0]!;
  const { includes, indexOf } = Array.prototype;
  let scanned = 0;
  Array.prototype.includes = function (this: unknown[], ...args: Parameters<typeof includes>) {
    scanned += this.length;
    return includes.apply(this, args);
  };
  Array.prototype.indexOf = function (this: unknown[], ...args: Parameters<typeof indexOf>) {
    scanned += this.length;
    return indexOf.apply(this, args);
  };
  try {
    const lists = segmentRecords(root);
    return { records: Math.max(...lists.map((list) => list.records.length)), scanned };
  } finally {
    Object.assign(Array.prototype, { includes, indexOf });
  }
}

const nav = `<header><nav><ul class="menu"><li><a href="/">Home</a></li><li><a href="/deals">Deals</a></li><li><a href="/help">Help</a></li><li><a href="/account">Account</a></li></ul></nav></header>`;
const footer = `<footer><ul><li><a href="/about">About us</a></li><li><a href="/jobs">Careers</a></li><li><a href="/privacy">Privacy</a></li></ul></footer>`;

describe("segmentRecords", () => {
  it("groups alike siblings, with the rows that follow each one as parts of its record", () => {
    const $ = load(
      `<table><tbody>${[1, 2, 3].map((i) => `<tr class="head"><td><a href="/${i}">Title ${i}</a></td></tr><tr><td>${i} points by x</td></tr>`).join("")}</tbody></table>`,
    );
    const lists = segmentRecords($.root()[0]!);
    const rows = lists.find((list) => list.container.tagName === "tbody")!;
    expect(rows.records.map((record) => record.map((element) => $(element).text()))).toEqual([
      ["Title 1", "1 points by x"],
      ["Title 2", "2 points by x"],
      ["Title 3", "3 points by x"],
    ]);
  });

  it("merges the rows of a grid into one list in page order", () => {
    const $ = load(
      `<div class="grid">${[0, 1].map((r) => `<div class="row">${[1, 2, 3].map((c) => `<div class="cell"><a href="#">Item ${r * 3 + c}</a> <b>$${c}</b></div>`).join("")}</div>`).join("")}</div>`,
    );
    const grid = segmentRecords($.root()[0]!).find((list) => list.records.length === 6)!;
    expect(grid.records.map(([cell]) => $(cell!).find("a").text())).toEqual([
      "Item 1",
      "Item 2",
      "Item 3",
      "Item 4",
      "Item 5",
      "Item 6",
    ]);
  });

  it("marks lists in navigation and footers as boilerplate", () => {
    const $ = load(
      `${nav}<div class="results">${[1, 2].map((i) => `<div class="r"><a href="/${i}">Result ${i}</a></div>`).join("")}</div>${footer}`,
    );
    const lists = segmentRecords($.root()[0]!);
    expect(lists.filter((list) => list.boilerplate).length).toBeGreaterThanOrEqual(2);
    expect(lists.find((list) => list.container.attribs.class === "results")?.boilerplate).toBe(false);
  });

  it("merges a list's parts in work linear in their number (labelled rows: each record a part of three lines)", () => {
    // Each record's lines are a list of their own, merged into one list of lines: a search of the parts merged so far
    // for each new part was quadratic (n²/2 elements scanned for n records).
    const small = segmentCounted(labelledRows(1_000));
    const large = segmentCounted(labelledRows(2_000));
    expect([small.records, large.records]).toEqual([3_000, 6_000]);
    expect(large.scanned / Math.max(small.scanned, 1)).toBeLessThan(2.5);
  });
});

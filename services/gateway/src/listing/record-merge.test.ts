import { describe, expect, it } from "vitest";
import { RecordMerge } from "./record-merge.js";

describe("records merged over a listing's pages", () => {
  it("keeps each linked record once, in page order, however its link is written", () => {
    const merge = new RecordMerge("url");
    merge.add("https://shop.example/c?page=1", [
      { name: "A", url: "/p/a" },
      { name: "B", url: "p/b#reviews" },
    ]);
    // B shifted from page 1 to page 2 while the listing was read.
    const second = merge.add("https://shop.example/c?page=2", [
      { name: "B", url: "https://shop.example/p/b" },
      { name: "C", url: "/p/c" },
    ]);
    expect(second).toEqual({ added: 1, placed: [undefined, 2] });
    expect(merge.records.map((r) => (r as { name: string }).name)).toEqual(["A", "B", "C"]);
  });

  it("keeps records without a link that share every value, unless they repeat at the same position", () => {
    const merge = new RecordMerge(undefined);
    const twins = [{ size: "M" }, { size: "M" }];
    expect(merge.add("https://shop.example/1", twins).added).toBe(2);
    expect(merge.add("https://shop.example/2", [{ size: "L" }, { size: "M" }]).added).toBe(1);
    expect(merge.add("https://shop.example/3", twins).added).toBe(0);
    expect(merge.records).toHaveLength(3);
  });

  it("takes a link several records of a page share for no record's own", () => {
    const merge = new RecordMerge("url");
    const cards = [
      { name: "A", url: "https://learn.example/" },
      { name: "B", url: "https://learn.example/" },
    ];
    expect(merge.add("https://jobs.example/", cards).added).toBe(2);
    expect(merge.links).toEqual([undefined, undefined]);
  });

  it("falls back to values and position for a record whose link is empty or not a web address", () => {
    const merge = new RecordMerge("url");
    merge.add("https://shop.example/1", [{ url: null }, { url: "javascript:void(0)" }]);
    expect(merge.records).toHaveLength(2);
  });
});

import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { shape } from "./shape.js";

describe("shape", () => {
  it("returns every declared field, null where missing, and drops unknown keys", () => {
    const tree = parseSchema({ title: "string", price: "number", seller: { name: "string" } });
    const { data, warnings } = shape(tree, { title: "Lamp", extra: 1 });
    expect(data).toEqual({ title: "Lamp", price: null, seller: null });
    expect(warnings).toEqual([]);
  });

  it("fills a non-object answer with nulls", () => {
    expect(shape(parseSchema({ a: "string" }), "text").data).toEqual({ a: null });
  });

  it.each([
    ["number", "1,299.00", 1299],
    ["number", "$12.50", 12.5],
    ["number", "12.50 EUR", 12.5],
    ["number", "-3", -3],
    ["number", "€ 1,000", 1000],
    ["integer", "42", 42],
    ["integer", 42.0, 42],
    ["integer", "1,299.00", 1299],
    ["string", 42, "42"],
    ["string", true, "true"],
    ["boolean", "true", true],
    ["boolean", "No", false],
    ["boolean", "In stock", true],
    ["number", "1.299,00 €", 1299],
    ["number", "12,50", 12.5],
  ])("coerces a %s field from %j to %j", (type, value, expected) => {
    const { data, warnings } = shape(parseSchema({ field: type }), { field: value });
    expect(data.field).toBe(expected);
    if (typeof value !== typeof expected)
      expect(warnings).toEqual([expect.objectContaining({ code: "coerced", path: "/field" })]);
  });

  it.each([
    ["number", "about 12"],
    ["number", "12abc"],
    ["number", true],
    ["integer", 4.5],
    ["integer", "4.5"],
    ["boolean", "maybe"],
    ["boolean", "constructor"],
    ["boolean", 1],
    ["string", { text: "x" }],
    ["string", ["a", "b"]],
  ])("drops a %s field given %j, with a warning", (type, value) => {
    const { data, warnings } = shape(parseSchema({ field: type }), { field: value });
    expect(data.field).toBeNull();
    expect(warnings).toEqual([expect.objectContaining({ code: "dropped-value", path: "/field" })]);
  });

  it("treats blank strings as absent and trims strings", () => {
    const { data, warnings } = shape(parseSchema({ a: "string", b: "number", c: "string" }), {
      a: "  ",
      b: "",
      c: " x ",
    });
    expect(data).toEqual({ a: null, b: null, c: "x" });
    expect(warnings).toEqual([]);
  });

  it("shapes arrays of objects recursively, leaving out unusable items", () => {
    const tree = parseSchema({ items: [{ name: "string", price: "number" }], tags: ["string"], counts: ["integer"] });
    const { data, warnings } = shape(tree, {
      items: [{ name: "A", price: "1.50", junk: true }, null, "not an object", { name: "B" }],
      tags: ["x", null, 3],
      counts: [1, "2", "three"],
    });
    expect(data).toEqual({
      items: [
        { name: "A", price: 1.5 },
        { name: "B", price: null },
      ],
      tags: ["x", "3"],
      counts: [1, 2],
    });
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual([
      "coerced /items/0/price",
      "dropped-value /items/2",
      "coerced /tags/2",
      "coerced /counts/1",
      "dropped-value /counts/2",
    ]);
  });

  it("wraps a single value for an array field and drops wrong kinds for objects", () => {
    const tree = parseSchema({ tags: ["string"], seller: { name: "string" } });
    const { data, warnings } = shape(tree, { tags: "solo", seller: ["x"] });
    expect(data).toEqual({ tags: ["solo"], seller: null });
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(["coerced /tags", "dropped-value /seller"]);
  });

  it("passes free-form arrays and objects through when they are the right kind", () => {
    const tree = parseSchema({ any: "object", list: "array", bad: "object" });
    const { data, warnings } = shape(tree, { any: { a: [1, { b: 2 }] }, list: [1, "x", null], bad: [1] });
    expect(data).toEqual({ any: { a: [1, { b: 2 }] }, list: [1, "x", null], bad: null });
    expect(warnings).toEqual([expect.objectContaining({ code: "dropped-value", path: "/bad" })]);
  });

  it("reads own properties only and never touches prototypes", () => {
    const tree = parseSchema({ toString: "string", hasOwnProperty: "string" });
    const { data } = shape(tree, JSON.parse('{"__proto__": {"polluted": true}, "hasOwnProperty": "yes"}'));
    expect(data).toEqual({ toString: null, hasOwnProperty: "yes" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it("escapes field names in warning paths", () => {
    const { warnings } = shape(parseSchema({ "a/b": "number" }), { "a/b": "x" });
    expect(warnings[0]?.path).toBe("/a~1b");
  });
});

describe("shape with hints from field names", () => {
  it("reads durations in the named unit and written dates for iso8601 fields", () => {
    const tree = parseSchema({
      total_time_minutes: "integer",
      cook_time: "integer",
      published_date_iso8601: "string",
      updated_iso8601: "string",
    });
    const { data } = shape(tree, {
      total_time_minutes: "PT1H30M",
      cook_time: "PT20M",
      published_date_iso8601: "May 25, 2010",
      updated_iso8601: "2019-12-12T08:00:00Z",
    });
    // Without a unit in the name, converting would be a guess.
    expect(data).toEqual({
      total_time_minutes: 90,
      cook_time: null,
      published_date_iso8601: "2010-05-25",
      updated_iso8601: "2019-12-12T08:00:00Z",
    });
  });
});

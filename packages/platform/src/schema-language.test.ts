import { describe, expect, it } from "vitest";
import { parseSchema, SCHEMA_LIMITS, SchemaError } from "./schema-language.js";

function violations(value: unknown) {
  try {
    parseSchema(value);
  } catch (error) {
    if (error instanceof SchemaError) return error.violations;
    throw error;
  }
  throw new Error("expected a SchemaError");
}

describe("parseSchema", () => {
  it("parses every form of the language", () => {
    expect(
      parseSchema({
        title: "string",
        price: "number",
        count: "integer",
        in_stock: "boolean",
        tags: ["string"],
        extra: "object",
        anything: "array",
        seller: { name: "string" },
        reviews: [{ author: "string", stars: "integer" }],
      }),
    ).toEqual({
      kind: "object",
      fields: [
        { name: "title", node: { kind: "scalar", type: "string" } },
        { name: "price", node: { kind: "scalar", type: "number" } },
        { name: "count", node: { kind: "scalar", type: "integer" } },
        { name: "in_stock", node: { kind: "scalar", type: "boolean" } },
        { name: "tags", node: { kind: "array", items: { kind: "scalar", type: "string" } } },
        { name: "extra", node: { kind: "any-object" } },
        { name: "anything", node: { kind: "any-array" } },
        {
          name: "seller",
          node: { kind: "object", fields: [{ name: "name", node: { kind: "scalar", type: "string" } }] },
        },
        {
          name: "reviews",
          node: {
            kind: "array",
            items: {
              kind: "object",
              fields: [
                { name: "author", node: { kind: "scalar", type: "string" } },
                { name: "stars", node: { kind: "scalar", type: "integer" } },
              ],
            },
          },
        },
      ],
    });
  });

  it("names the path of every bad node", () => {
    expect(
      violations({ a: "money", b: { c: 3 }, d: [], e: ["string", "number"], f: [["string"]], "x/y": "date" }),
    ).toEqual([
      { path: "/schema/a", description: expect.stringContaining('unknown type "money"') },
      { path: "/schema/b/c", description: expect.stringContaining("must be a type name") },
      { path: "/schema/d", description: expect.stringContaining("exactly one item type") },
      { path: "/schema/e", description: expect.stringContaining("exactly one item type") },
      { path: "/schema/f/0", description: expect.stringContaining("arrays of arrays") },
      { path: "/schema/x~1y", description: expect.stringContaining('unknown type "date"') },
    ]);
  });

  it("refuses non-objects, empty objects and prototype keys", () => {
    expect(violations("string")[0]?.path).toBe("/schema");
    expect(violations([{ a: "string" }])[0]?.path).toBe("/schema");
    expect(violations(null)[0]?.path).toBe("/schema");
    expect(violations({})[0]?.description).toMatch(/at least one field/);
    expect(violations({ nested: {} })[0]?.path).toBe("/schema/nested");
    expect(violations(JSON.parse('{"__proto__": "string"}'))[0]?.path).toBe("/schema/__proto__");
    expect(violations({ constructor: "string" })[0]?.path).toBe("/schema/constructor");
    expect(violations({ "": "string" })[0]?.description).toMatch(/field name/);
    expect(violations({ "a\u0000b": "string" })[0]?.description).toMatch(/control characters/);
  });

  it("enforces depth, field count and name length limits", () => {
    let deep: unknown = "string";
    for (let i = 0; i < SCHEMA_LIMITS.maxDepth + 2; i++) deep = { level: deep };
    expect(violations(deep)[0]?.description).toMatch(/nested too deeply/);

    const wide = Object.fromEntries(
      Array.from({ length: SCHEMA_LIMITS.maxFields + 50 }, (_, i) => [`f${i}`, "string"]),
    );
    expect(violations(wide)).toEqual([
      { path: `/schema/f${SCHEMA_LIMITS.maxFields}`, description: expect.stringMatching(/too many fields/) },
    ]);

    expect(violations({ ["n".repeat(SCHEMA_LIMITS.maxNameLength + 1)]: "string" })[0]?.description).toMatch(
      /1-128 characters/,
    );
    expect(() => parseSchema({ ["n".repeat(SCHEMA_LIMITS.maxNameLength)]: "string" })).not.toThrow();
  });

  it("keeps odd but harmless names and Unicode", () => {
    expect(parseSchema({ "prix_€": "number", 名前: "string", "a.b": "string" }).fields.map((f) => f.name)).toEqual([
      "prix_€",
      "名前",
      "a.b",
    ]);
  });

  it("caps the number of reported violations", () => {
    const bad = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}`, "nope"]));
    expect(violations(bad)).toHaveLength(50);
  });
});

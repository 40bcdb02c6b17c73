import { WinnowError } from "@winnow/platform";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseScrapeRequest } from "./scrape-request.js";

const url = "https://shop.example/item/42";

function failure(schema: unknown): WinnowError {
  try {
    parseScrapeRequest({ url, schema });
  } catch (error) {
    if (error instanceof WinnowError) return error;
    throw error;
  }
  throw new Error("expected a WinnowError");
}

describe("a JSON Schema as `schema`", () => {
  it("is read as its schema-language twin: objects, arrays of objects and scalars, nullable, annotations", () => {
    const request = parseScrapeRequest({
      url,
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        title: "Product",
        type: "object",
        required: ["title"],
        additionalProperties: false,
        properties: {
          title: { type: "string", description: "the product's name" },
          price_usd: { type: ["number", "null"] },
          stock: { type: "integer", nullable: true },
          in_stock: { anyOf: [{ type: "boolean" }, { type: "null" }] },
          seller: { type: "object", properties: { name: { type: "string" } } },
          extra: { type: "object" },
          tags: { type: "array", items: { type: "string", format: "uri" } },
          reviews: {
            type: "array",
            items: { type: "object", properties: { author: { type: "string" }, rating: { type: "number" } } },
          },
          anything: { type: "array" },
        },
      },
    });
    expect(JSON.parse(request.schemaJson)).toEqual({
      title: "string",
      price_usd: "number",
      stock: "integer",
      in_stock: "boolean",
      seller: { name: "string" },
      extra: "object",
      tags: ["string"],
      reviews: [{ author: "string", rating: "number" }],
      anything: "array",
    });
  });

  it("keeps each field's description as a hint for the model, by its pointer in the translation", () => {
    const request = parseScrapeRequest({
      url,
      schema: {
        type: "object",
        description: "a product page",
        properties: {
          title: { type: "string", description: " the product's name " },
          price: { description: "after discount", anyOf: [{ type: "number", description: "inner" }, { type: "null" }] },
          reviews: {
            type: "array",
            items: { type: "object", properties: { author: { type: "string", description: "display name" } } },
          },
          empty: { type: "string", description: "" },
        },
      },
    });
    expect(request.fieldHints).toEqual({
      "/title": "the product's name",
      "/price": "after discount",
      "/reviews/0/author": "display name",
    });
    expect(parseScrapeRequest({ url, schema: { title: "string" } }).fieldHints).toEqual({});
  });

  it("refuses a description too long to be a hint", () => {
    const error = failure({ type: "object", properties: { a: { type: "string", description: "x".repeat(1001) } } });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations.map((v) => v.path)).toEqual(["/schema/properties/a/description"]);
  });

  it("is recognized by $schema alone, draft-07 included", () => {
    const request = parseScrapeRequest({
      url,
      schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        definitions: {},
        properties: { name: { type: "string" } },
      },
    });
    expect(JSON.parse(request.schemaJson)).toEqual({ name: "string" });
  });

  it("leaves the schema language alone, fields named `type` included", () => {
    const request = parseScrapeRequest({ url, schema: { type: "string", properties: "object" } });
    expect(JSON.parse(request.schemaJson)).toEqual({ type: "string", properties: "object" });
  });

  it.each([
    ["pattern", { a: { type: "string", pattern: "^x" } }, "/schema/properties/a/pattern"],
    ["oneOf", { a: { oneOf: [{ type: "string" }, { type: "number" }] } }, "/schema/properties/a/oneOf"],
    [
      "anyOf",
      { a: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } },
      "/schema/properties/a/anyOf",
    ],
    ["allOf", { a: { allOf: [{ type: "string" }] } }, "/schema/properties/a/allOf"],
    [
      "patternProperties",
      { a: { type: "object", patternProperties: { "^x": {} } } },
      "/schema/properties/a/patternProperties",
    ],
    [
      "additionalProperties",
      { a: { type: "object", additionalProperties: { type: "string" } } },
      "/schema/properties/a/additionalProperties",
    ],
    ["items", { a: { type: "array", items: [{ type: "string" }] } }, "/schema/properties/a/items"],
  ])("refuses %s with 422 naming the keyword's pointer", (keyword, properties, pointer) => {
    const error = failure({ type: "object", properties });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations).toEqual([expect.objectContaining({ path: pointer })]);
    expect(error.message).toContain(`"${keyword}" is not supported`);
  });

  it("names an unknown keyword plainly, whatever it is called", () => {
    const error = failure(
      JSON.parse('{"type":"object","properties":{"a":{"type":"string","constructor":1,"__proto__":{}}}}'),
    );
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations.map((v) => v.description)).toEqual([
      '"constructor" is not supported: it does not map to the schema language',
      '"__proto__" is not supported: it does not map to the schema language',
    ]);
  });

  it("refuses a field of two types, and a field with no type", () => {
    const error = failure({
      type: "object",
      properties: { a: { type: ["string", "number"] }, b: { description: "?" } },
    });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations.map((v) => v.path)).toEqual(["/schema/properties/a/type", "/schema/properties/b"]);
  });

  it("refuses a malformed JSON Schema as invalid-schema, with Ajv's pointer", () => {
    const error = failure({ type: "object", properties: { a: { type: "string", description: 42 } } });
    expect(error.type).toBe("invalid-schema");
    expect(error.violations[0]?.path).toBe("/schema/properties/a/description");
  });

  it("names the JSON Schema's own pointers when the twin breaks the language's rules", () => {
    const error = failure({
      type: "object",
      properties: {
        constructor: { type: "string" },
        list: { type: "array", items: { type: "array", items: { type: "string" } } },
      },
    });
    expect(error.type).toBe("invalid-schema");
    expect(error.violations.map((v) => v.path)).toEqual([
      "/schema/properties/constructor",
      "/schema/properties/list/items",
    ]);
  });

  it("follows local references to $defs and definitions, keeping the referring field's description", () => {
    const request = parseScrapeRequest({
      url,
      schema: {
        type: "object",
        properties: {
          seller: { $ref: "#/$defs/Party", description: "who sells it" },
          buyer: { $ref: "#/definitions/Party" },
          offers: { type: "array", items: { $ref: "#/$defs/Offer" } },
        },
        $defs: {
          Party: { type: "object", properties: { name: { type: "string", description: "full name" } } },
          Offer: { $ref: "#/$defs/Price%20tag" },
          "Price tag": { type: "object", properties: { amount: { type: "number" } } },
        },
        definitions: { Party: { type: "object", properties: { name: { type: "string" } } } },
      },
    });
    expect(JSON.parse(request.schemaJson)).toEqual({
      seller: { name: "string" },
      buyer: { name: "string" },
      offers: [{ amount: "number" }],
    });
    expect(request.fieldHints).toEqual({ "/seller": "who sells it", "/seller/name": "full name" });
  });

  it("reads a root that is itself a reference", () => {
    const request = parseScrapeRequest({
      url,
      schema: {
        $ref: "#/$defs/Product",
        $defs: { Product: { type: "object", properties: { name: { type: "string" } } } },
      },
    });
    expect(JSON.parse(request.schemaJson)).toEqual({ name: "string" });
  });

  it.each([
    [
      "a remote reference",
      { a: { $ref: "https://example.com/a.json" } },
      '"https://example.com/a.json" is not followed',
    ],
    ["a reference to nothing", { a: { $ref: "#/$defs/Missing" } }, "names no schema in this document"],
    ["a reference to the whole schema", { a: { $ref: "#" } }, "refers to a schema that contains it"],
    ["a keyword beside $ref", { a: { $ref: "#/$defs/A", minLength: 1 } }, '"minLength" beside "$ref"'],
  ])("refuses %s with 422 naming it", (_, properties, message) => {
    const error = failure({ type: "object", properties, $defs: { A: { type: "string" } } });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.message).toContain(message);
    expect(error.violations[0]?.path).toMatch(/^\/schema\/properties\/a\//);
  });

  it("refuses a cycle of references, where the cycle closes", () => {
    const error = failure({
      type: "object",
      properties: { node: { $ref: "#/$defs/Node" } },
      $defs: {
        Node: {
          type: "object",
          properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
        },
      },
    });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations).toEqual([
      {
        path: "/schema/$defs/Node/properties/children/items/$ref",
        description: expect.stringContaining("JSON without end"),
      },
    ]);
  });

  it("refuses references that expand past the schema's field limit", () => {
    const level = (next: string) => ({ type: "object", properties: { a: { $ref: next }, b: { $ref: next } } });
    const $defs = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`L${i}`, i === 11 ? { type: "string" } : level(`#/$defs/L${i + 1}`)]),
    );
    const error = failure({ type: "object", properties: { root: { $ref: "#/$defs/L0" } }, $defs });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.message).toContain("expand to more than 300 fields");
  });

  it("keeps enum, const and the checked formats as each scalar field's rule, by pointer", () => {
    const request = parseScrapeRequest({
      url,
      schema: {
        type: "object",
        properties: {
          stock: { type: ["string", "null"], enum: ["in stock", "sold out", null] },
          kind: { const: "product", type: "string" },
          stars: { type: "integer", enum: [1, 2, 3, 4, 5] },
          released: { type: "string", format: "date" },
          site: { type: "string", format: "uri" },
          id: { type: "string", format: "uuid" },
          contacts: { type: "array", items: { type: "string", format: "email" } },
        },
      },
    });
    expect(request.fieldRules).toEqual({
      "/stock": { allowedJson: ['"in stock"', '"sold out"'], format: "" },
      "/kind": { allowedJson: ['"product"'], format: "" },
      "/stars": { allowedJson: ["1", "2", "3", "4", "5"], format: "" },
      "/released": { allowedJson: [], format: "date" },
      "/site": { allowedJson: [], format: "uri" },
      "/contacts/0": { allowedJson: [], format: "email" },
    });
    expect(JSON.parse(request.schemaJson)).toMatchObject({ stock: "string", kind: "string", contacts: ["string"] });
  });

  it.each([
    [
      "a value of another type",
      { type: "integer", enum: [1, "two"] },
      "/schema/properties/a/enum/1",
      "is not a whole number",
    ],
    [
      "enum on an object",
      { type: "object", enum: [{}] },
      "/schema/properties/a/enum",
      "on a string, number, integer or boolean field only",
    ],
    ["only null", { type: ["string", "null"], enum: [null] }, "/schema/properties/a/enum", "allows only null"],
    ["enum and const together", { type: "string", enum: ["x"], const: "x" }, "/schema/properties/a/const", "not both"],
  ])("refuses %s with 422", (_, field, pointer, message) => {
    const error = failure({ type: "object", properties: { a: field } });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations).toEqual([{ path: pointer, description: expect.stringContaining(message) }]);
  });

  it("answers any schema of references, enums and formats, or refuses it with a problem: never a crash", () => {
    const ref = fc.constantFrom(
      "#",
      "#/$defs/A",
      "#/$defs/B",
      "#/$defs/A/properties/x",
      "#/%E0",
      "#/nope",
      "http://x/y",
      7,
    );
    const node = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.record({ $ref: ref }),
        fc.record(
          {
            type: fc.constantFrom("string", "integer", "object", "array", 3),
            enum: fc.array(fc.jsonValue(), { maxLength: 3 }),
          },
          { requiredKeys: ["type"] },
        ),
        fc.record(
          {
            type: fc.constant("string"),
            format: fc.constantFrom("date", "uri", "email", "uuid", 1),
            const: fc.jsonValue(),
          },
          { requiredKeys: ["type"] },
        ),
        fc.record({
          type: fc.constant("object"),
          properties: fc.dictionary(fc.constantFrom("x", "y", "__proto__"), tie("node"), { maxKeys: 2 }),
        }),
        fc.record({ type: fc.constant("array"), items: tie("node") }),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("a", "b"), node, { minKeys: 1, maxKeys: 2 }),
        node,
        node,
        (properties, a, b) => {
          try {
            parseScrapeRequest({ url, schema: { type: "object", properties, $defs: { A: a, B: b } } });
          } catch (error) {
            if (!(error instanceof WinnowError)) throw error;
            expect(["invalid-schema", "unsupported-json-schema", "invalid-request"]).toContain(error.type);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

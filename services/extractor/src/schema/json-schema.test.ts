import { parseSchema } from "@winnow/platform";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { toResponseFormat } from "./json-schema.js";
import { SchemaCache } from "./schema-cache.js";

type Json = Record<string, any>;

/** Every object schema in the tree, for properties that must hold everywhere. */
function objectSchemas(schema: Json): Json[] {
  const found: Json[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== "object" || node === null) return;
    if ((node as Json).type === "object" && (node as Json).properties) found.push(node as Json);
    Object.values(node).forEach(visit);
  };
  visit(schema);
  return found;
}

describe("field hints", () => {
  const tree = parseSchema({ price_usd: "number", reviews: [{ author: "string" }], "a/b": "string" });

  it("puts the caller's description of a field before what its name says, at any depth", () => {
    const schema = toResponseFormat(tree, {
      "/price_usd": "the discounted price",
      "/reviews/0/author": "the reviewer's display name",
      "/a~1b": "a field with a slash",
      "/nowhere": "ignored",
    }).json_schema.schema as Json;
    expect(schema.properties.price_usd.description).toMatch(/^the discounted price\. .*USD/);
    expect(schema.properties.reviews.anyOf[0].items.properties.author.description).toBe("the reviewer's display name");
    expect(schema.properties["a/b"].description).toBe("a field with a slash");
    expect(JSON.stringify(schema)).not.toContain("ignored");
  });

  it("compiles a schema with hints apart from the same schema without them", () => {
    const cache = new SchemaCache();
    const json = JSON.stringify({ title: "string" });
    const hinted = cache.get(json, { "/title": "the product's name" });
    expect((hinted.responseFormat.json_schema.schema as Json).properties.title.description).toBe("the product's name");
    expect((cache.get(json).responseFormat.json_schema.schema as Json).properties.title.description).toBeUndefined();
    expect(hinted.tree).toBe(cache.get(json).tree);
  });
});

describe("toResponseFormat", () => {
  const tree = parseSchema({
    title: "string",
    price_usd: "number",
    in_stock: "boolean",
    seller: { name: "string", rating_1_to_5: "number" },
    tags: ["string"],
    reviews: [{ author: "string", stars: "integer" }],
  });
  const format = toResponseFormat(tree);
  const schema = format.json_schema.schema as Json;

  it("is a strict json_schema response format", () => {
    expect(format.type).toBe("json_schema");
    expect(format.json_schema.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(format.json_schema.strict).toBe(true);
  });

  it("requires every property and closes every object", () => {
    const objects = objectSchemas(schema);
    expect(objects).toHaveLength(3);
    for (const object of objects) {
      expect(object.additionalProperties).toBe(false);
      expect([...object.required].sort()).toEqual(Object.keys(object.properties).sort());
    }
  });

  it("makes fields nullable: scalars by type union, objects and arrays by anyOf", () => {
    expect(schema.properties.title).toEqual({ type: ["string", "null"] });
    expect(schema.properties.in_stock).toEqual({ type: ["boolean", "null"] });
    expect(schema.properties.seller.anyOf[1]).toEqual({ type: "null" });
    expect(schema.properties.seller.anyOf[0].type).toBe("object");
    expect(schema.properties.tags).toEqual({ anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }] });
    const reviewItem = schema.properties.reviews.anyOf[0].items;
    expect(reviewItem.type).toBe("object");
    expect(reviewItem.properties.stars).toEqual({ type: ["integer", "null"] });
  });

  it("turns units and scales in names into short descriptions", () => {
    expect(schema.properties.price_usd.description).toMatch(/USD/);
    expect(schema.properties.seller.anyOf[0].properties.rating_1_to_5.description).toMatch(/1 to 5/);
    expect(schema.properties.title.description).toBeUndefined();
  });

  it("is not strict when the schema has free-form nodes, which strict mode cannot express", () => {
    const loose = toResponseFormat(parseSchema({ title: "string", extra: "object", list: "array" }));
    expect(loose.json_schema.strict).toBe(false);
    const properties = (loose.json_schema.schema as Json).properties;
    expect(properties.extra).toEqual({ type: ["object", "null"] });
    expect(properties.list).toEqual({ type: ["array", "null"] });
  });
});

describe("SchemaCache", () => {
  it("keeps keyword-like and prototype-like field names as plain property names", () => {
    const format = toResponseFormat(
      parseSchema({ $ref: "string", $data: "number", hasOwnProperty: { $id: "string" } }),
    );
    const schema = format.json_schema.schema!;
    // Keywords appear only where the compiler put them: the names are keys of "properties", nothing more.
    expect(Object.keys(schema)).toEqual(["type", "properties", "required", "additionalProperties"]);
    expect(Object.keys(schema.properties as object)).toEqual(["$ref", "$data", "hasOwnProperty"]);
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate({ $ref: "https://evil.example/x.json", $data: 1, hasOwnProperty: { $id: null } })).toBe(true);
    expect(validate({ $ref: 1, $data: 1, hasOwnProperty: null })).toBe(false);
  });

  it("compiles a schema text once", () => {
    const cache = new SchemaCache(2);
    const first = cache.get('{"title":"string"}');
    expect(cache.get('{"title":"string"}')).toBe(first);
  });

  it("evicts the least recently used schema past its size", () => {
    const cache = new SchemaCache(2);
    const a = cache.get('{"a":"string"}');
    const b = cache.get('{"b":"string"}');
    cache.get('{"a":"string"}');
    cache.get('{"c":"string"}');
    expect(cache.get('{"a":"string"}')).toBe(a);
    expect(cache.get('{"b":"string"}')).not.toBe(b);
  });

  it("refuses invalid JSON and invalid schemas with violation paths", () => {
    const cache = new SchemaCache();
    expect(() => cache.get("{nope")).toThrow(
      expect.objectContaining({ type: "invalid-schema", violations: [expect.objectContaining({ path: "/schema" })] }),
    );
    expect(() => cache.get('{"items":[{"price":"money"}]}')).toThrow(
      expect.objectContaining({
        type: "invalid-schema",
        violations: [expect.objectContaining({ path: "/schema/items/0/price" })],
      }),
    );
  });
});

import { parseSchema } from "@winnow/platform";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { withRules } from "./field-rules.js";
import { toResponseFormat } from "./json-schema.js";
import { SchemaCache } from "./schema-cache.js";
import { shape } from "./shape.js";

type Json = Record<string, any>;

const base = new URL("https://shop.example/items/42");
const rule = (allowed: unknown[], format = "") => ({ allowedJson: allowed.map((v) => JSON.stringify(v)), format });

const tree = withRules(
  parseSchema({
    stock: "string",
    stars: "integer",
    kind: "string",
    released: "string",
    updated: "string",
    link: "string",
    contact: "string",
    tags: ["string"],
    seller: { name: "string" },
  }),
  {
    "/stock": rule(["in stock", "sold out", "pre-order"]),
    "/stars": rule([1, 2, 3, 4, 5]),
    "/kind": rule(["product"]),
    "/released": rule([], "date"),
    "/updated": rule([], "date-time"),
    "/link": rule([], "uri"),
    "/contact": rule([], "email"),
    "/tags/0": rule(["new", "sale"]),
    // Ignored: no such field, not a scalar, values not of the field's type, a format not checked.
    "/nowhere": rule(["x"]),
    "/seller": rule(["x"]),
    "/seller/name": rule([1, 2], "uuid"),
  },
);

function shaped(value: Record<string, unknown>) {
  const { data, warnings } = shape(tree, value, base);
  return { data, codes: warnings.map((w) => `${w.code} ${w.path}`) };
}

describe("a JSON Schema's value rules", () => {
  it("answer an allowed value written otherwise in the allowed spelling, and drop any other", () => {
    const { data, codes } = shaped({
      stock: "In  Stock",
      stars: "4",
      kind: "Product",
      tags: ["SALE", "clearance", "new"],
    });
    expect(data).toMatchObject({ stock: "in stock", stars: 4, kind: "product", tags: ["sale", "new"] });
    expect(codes).toEqual([
      "coerced /stock",
      "coerced /stars",
      "coerced /kind",
      "coerced /tags/0",
      "dropped-value /tags/1",
    ]);
    const outside = shaped({ stock: "Backordered", stars: 7 });
    expect(outside.data).toMatchObject({ stock: null, stars: null });
    expect(outside.codes).toEqual(["dropped-value /stock", "dropped-value /stars"]);
  });

  it("say which values were allowed when one is dropped", () => {
    const { warnings } = shape(tree, { stock: "Backordered" }, base);
    expect(warnings[0]?.message).toBe(
      'expected one of "in stock", "sold out", "pre-order", got "Backordered"; returned null',
    );
  });

  it("leave a value that matches two allowed spellings unsettled", () => {
    const twins = withRules(parseSchema({ stock: "string" }), { "/stock": rule(["in-stock", "in stock"]) });
    expect(shape(twins, { stock: "In_Stock" }).data.stock).toBeNull();
    expect(shape(twins, { stock: "in stock" }).data.stock).toBe("in stock");
  });

  it("normalise a value to its format where it reads one way only, and mark it where it does not", () => {
    const { data, codes } = shaped({
      released: "May 25, 2010",
      updated: "Tue, 25 May 2010 10:30:00 GMT",
      link: "/items/43?ref=a",
      contact: "mailto:sales@shop.example?subject=Hi",
    });
    expect(data).toMatchObject({
      released: "2010-05-25",
      updated: "2010-05-25T10:30:00.000Z",
      link: "https://shop.example/items/43?ref=a",
      contact: "sales@shop.example",
    });
    expect(codes).toEqual(["coerced /released", "coerced /updated", "coerced /link", "coerced /contact"]);
    // "N/A" would resolve against the page's address as a path; it is no reference, so it is not resolved.
    const unmet = shaped({
      released: "03/04/2010",
      updated: "May 25, 2010 10:30",
      link: "N/A",
      contact: "sales at shop",
    });
    expect(unmet.data).toMatchObject({
      released: "03/04/2010",
      updated: "May 25, 2010 10:30",
      link: "N/A",
      contact: "sales at shop",
    });
    expect(unmet.codes).toEqual([
      "format-unmet /released",
      "format-unmet /updated",
      "format-unmet /link",
      "format-unmet /contact",
    ]);
  });

  it("keep a value already in its format as it is", () => {
    const { data, codes } = shaped({
      released: "2010-05-25",
      updated: "2010-05-25T10:30:00+02:00",
      link: "https://other.example/x",
      contact: "a@b.example",
    });
    expect(data).toMatchObject({
      released: "2010-05-25",
      updated: "2010-05-25T10:30:00+02:00",
      link: "https://other.example/x",
      contact: "a@b.example",
    });
    expect(codes).toEqual([]);
  });

  it("go into the model's response format: enum with null for a field, without for an item; formats in words", () => {
    const format = toResponseFormat(tree);
    const schema = format.json_schema.schema as Json;
    expect(format.json_schema.strict).toBe(true);
    expect(schema.properties.stock.enum).toEqual(["in stock", "sold out", "pre-order", null]);
    expect(schema.properties.stars).toMatchObject({ type: ["integer", "null"], enum: [1, 2, 3, 4, 5, null] });
    expect(schema.properties.tags.anyOf[0].items).toEqual({ type: "string", enum: ["new", "sale"] });
    expect(schema.properties.released.description).toContain("YYYY-MM-DD");
    expect(schema.properties.seller.anyOf[0].properties.name).toEqual({ type: ["string", "null"] });
    expect(JSON.stringify(schema)).not.toContain('"format"');
    // What the model is told to answer is a valid JSON Schema that an allowed answer meets.
    const validate = new Ajv({ strict: false }).compile(schema);
    const answer = { ...shape(tree, {}).data, stock: "sold out", stars: 5, tags: ["new"] };
    expect(validate(answer)).toBe(true);
  });

  it("are cached apart from the same schema without them, narrowed schemas included", () => {
    const cache = new SchemaCache();
    const json = JSON.stringify({ stock: "string", title: "string" });
    const rules = { "/stock": rule(["in stock"]) };
    const plain = cache.get(json);
    const ruled = cache.get(json, {}, rules);
    expect(plain.tree.fields[0]!.node).toEqual({ kind: "scalar", type: "string" });
    expect(ruled.tree.fields[0]!.node).toEqual({ kind: "scalar", type: "string", allowed: ["in stock"] });
    expect(cache.narrowed(json, ["stock"], {}, rules).tree.fields).toEqual([ruled.tree.fields[0]]);
  });
});

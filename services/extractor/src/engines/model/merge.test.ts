import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { mergeAnswers } from "./merge.js";

const tree = parseSchema({
  title: "string",
  price: "number",
  tags: ["string"],
  variants: [{ sku: "string" }],
  seller: { name: "string" },
  extra: "object",
});

describe("mergeAnswers", () => {
  it("takes scalars from the first part that has them and reports conflicts", () => {
    const { data, warnings } = mergeAnswers(
      tree,
      [
        { title: null, price: 10, tags: null, variants: null, seller: null, extra: null },
        { title: "Lamp", price: 12, tags: null, variants: null, seller: { name: "Shop" }, extra: { a: 1 } },
        { title: " LAMP ", price: 10, tags: null, variants: null, seller: { name: "Other" }, extra: null },
      ],
      ["", "", ""],
    );
    expect(data).toEqual({
      title: "Lamp",
      price: 10,
      tags: null,
      variants: null,
      seller: { name: "Shop" },
      extra: { a: 1 },
    });
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual([
      "merge-conflict /price",
      "merge-conflict /seller/name",
    ]);
  });

  it("concatenates arrays: values equal after normalisation once, records the first part's data states once", () => {
    const { data } = mergeAnswers(
      tree,
      [
        { title: null, price: null, tags: ["Red", "blue"], variants: [{ sku: "A1" }], seller: null, extra: null },
        {
          title: null,
          price: null,
          tags: ["red ", "Green"],
          variants: [{ sku: "a1" }, { sku: "B2" }],
          seller: null,
          extra: null,
        },
      ],
      ['{"sku": "A1"}\n--- page text ---\nRed, blue', "red, Green: a1, B2"],
    );
    expect(data.tags).toEqual(["Red", "blue", "Green"]);
    expect(data.variants).toEqual([{ sku: "A1" }, { sku: "B2" }]);
  });

  it("keeps hostile field names as data", () => {
    const hostile = parseSchema({ hasOwnProperty: "string", toString: "string" });
    const { data } = mergeAnswers(
      hostile,
      [
        { hasOwnProperty: "a", toString: null },
        { hasOwnProperty: null, toString: "b" },
      ],
      ["", ""],
    );
    expect(JSON.stringify(data)).toBe('{"hasOwnProperty":"a","toString":"b"}');
  });

  it("keeps two records that share every value, in one part or in two", () => {
    const list = parseSchema({ products: [{ name: "string", price: "number" }] });
    const lamp = { name: "Lamp", price: 10 };
    const { data } = mergeAnswers(
      list,
      [{ products: [lamp, lamp, { name: "Desk", price: 99 }] }, { products: [lamp, { name: "Chair", price: 45 }] }],
      ["--- page text ---\nLamp $10 | Lamp $10 | Desk $99", "Chair $45 | Lamp $10"],
    );
    expect(data.products).toEqual([lamp, lamp, { name: "Desk", price: 99 }, lamp, { name: "Chair", price: 45 }]);
  });

  it("drops a record read twice: a later part's record that an earlier part's structured data states", () => {
    const list = parseSchema({ products: [{ name: "string", price: "number" }] });
    const { data } = mergeAnswers(
      list,
      [
        {
          products: [
            { name: "Lamp", price: 10 },
            { name: "Desk", price: 99 },
          ],
        },
        {
          products: [
            { name: "Desk", price: 99 },
            { name: "Chair", price: 45 },
          ],
        },
      ],
      [
        '{"itemListElement": [{"name": "Lamp", "price": 10}, {"name": "Desk", "price": 99}]}\n--- page text ---\nLamp $10',
        "Desk $99 | Chair $45",
      ],
    );
    expect(data.products).toEqual([
      { name: "Lamp", price: 10 },
      { name: "Desk", price: 99 },
      { name: "Chair", price: 45 },
    ]);
  });

  it("drops a record another part shows in part (some of its values, fewer of them)", () => {
    const list = parseSchema({ posts: [{ title: "string", points: "number", author: "string" }] });
    const full = { title: "Hello", points: 12, author: "ann" };
    const { data } = mergeAnswers(
      list,
      [
        { posts: [full, { title: "Bye", points: null, author: "bob" }] },
        {
          posts: [
            { title: null, points: 12, author: "ann" },
            { title: "Bye", points: 3, author: "bob" },
          ],
        },
      ],
      ["--- page text ---\nHello 12 ann | Bye", "bob 3 | ann 12"],
    );
    expect(data.posts).toEqual([full, { title: "Bye", points: 3, author: "bob" }]);
  });

  it("keeps a record as many times as the page's list shows it: a copy from another part beyond that is dropped", () => {
    const list = parseSchema({ products: [{ name: "string", price: "number" }] });
    const lamp = { name: "Lamp", price: 10 };
    const answers = [{ products: [lamp] }, { products: [lamp, { name: "Desk", price: 99 }] }];
    const texts = ["--- page text ---\nLamp $10", "Lamp $10 (also bought) | Desk $99"];
    const once = mergeAnswers(list, answers, texts, () => 1);
    expect(once.data.products).toEqual([lamp, { name: "Desk", price: 99 }]);
    const twice = mergeAnswers(list, answers, texts, () => 2);
    expect(twice.data.products).toEqual([lamp, lamp, { name: "Desk", price: 99 }]);
  });
});

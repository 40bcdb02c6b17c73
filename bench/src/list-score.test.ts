import { describe, expect, it } from "vitest";
import { addScore, emptyScore, itemSchemaOf, scoreRecords, sumFields } from "./list-score.js";

const ITEM = { title: "string", points: "number", author: "string" };

describe("scoreRecords", () => {
  it("pairs records by the fields that agree, whatever their order, and counts each field", () => {
    const expected = [
      { title: "First post", points: 10, author: "kim" },
      { title: "Second post", points: 20, author: "lee" },
    ];
    const predicted = [
      { title: "Second post", points: 21, author: "lee" },
      { title: "First post", points: 10, author: null },
    ];
    const score = scoreRecords(ITEM, expected, predicted);
    expect(score).toMatchObject({ expected: 2, predicted: 2, found: 2, extra: 0 });
    expect(score.fields.get("title")).toEqual({ tp: 2, fp: 0, fn: 0 });
    // A wrong value is a false positive and a false negative; a null where a value was expected a false negative.
    expect(score.fields.get("points")).toEqual({ tp: 1, fp: 1, fn: 1 });
    expect(score.fields.get("author")).toEqual({ tp: 1, fp: 0, fn: 1 });
  });

  it("needs half of the expected record's labelled fields to agree for a pair", () => {
    const expected = [{ title: "First post", points: 10, author: "kim" }];
    const score = scoreRecords(ITEM, expected, [{ title: "First post", points: 11, author: "lee" }]);
    expect(score).toMatchObject({ found: 0, extra: 1 });
    // The unmatched prediction's values are all false positives; the missed record's values all false negatives.
    expect(sumFields(score)).toEqual({ tp: 0, fp: 3, fn: 3 });
    // Half of two labelled fields is enough.
    const half = scoreRecords(
      ITEM,
      [{ title: "First post", points: 10, author: null }],
      [{ title: "First post", points: 11, author: "x" }],
    );
    expect(half).toMatchObject({ found: 1, extra: 0 });
    expect(sumFields(half)).toEqual({ tp: 1, fp: 2, fn: 1 });
  });

  it("counts records not found, extra records and a missing answer", () => {
    const expected = [
      { title: "A post", points: 1, author: "kim" },
      { title: "Another", points: 2, author: "lee" },
    ];
    expect(scoreRecords(ITEM, expected, null)).toMatchObject({ found: 0, extra: 0, predicted: 0 });
    expect(sumFields(scoreRecords(ITEM, expected, null))).toEqual({ tp: 0, fp: 0, fn: 6 });
    const score = scoreRecords(ITEM, expected, [...expected, { title: "Menu", points: null, author: null }]);
    expect(score).toMatchObject({ found: 2, extra: 1 });
    expect(sumFields(score)).toEqual({ tp: 6, fp: 1, fn: 0 });
  });

  it("pairs two records that share values with the nearest one in page order, never one record twice", () => {
    const expected = [
      { title: "Same", points: 1, author: "kim" },
      { title: "Same", points: 1, author: "kim" },
    ];
    const score = scoreRecords(ITEM, expected, [{ title: "Same", points: 1, author: "kim" }]);
    expect(score).toMatchObject({ found: 1, extra: 0 });
    expect(sumFields(score)).toEqual({ tp: 3, fp: 0, fn: 3 });
  });

  it("scores list fields by the list rule and adds scores up", () => {
    const item = { quote: "string", tags: ["string"] };
    const score = scoreRecords(
      item,
      [{ quote: "To be", tags: ["a", "b", "c", "d", "e"] }],
      [{ quote: "To be", tags: ["a", "b", "c", "d"] }],
    );
    expect(score.fields.get("tags")).toEqual({ tp: 1, fp: 0, fn: 0 });
    const total = emptyScore();
    addScore(total, score);
    addScore(total, score);
    expect(total).toMatchObject({ expected: 2, found: 2 });
    expect(total.fields.get("quote")).toEqual({ tp: 2, fp: 0, fn: 0 });
    expect(itemSchemaOf([item])).toEqual(item);
    expect(itemSchemaOf("string")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import {
  addOutcome,
  type Counts,
  labelsComplete,
  listF1,
  matches,
  metrics,
  normalizeText,
  scoreField,
  tokenF1,
} from "./score.js";

describe("scoreField", () => {
  it("skips unlabelled fields, counts null as a miss and a wrong value as both kinds of error", () => {
    expect(scoreField("title", "string", null, "x")).toBeUndefined();
    expect(scoreField("title", "string", "Lamp", null)).toBe("fn");
    expect(scoreField("tags", ["string"], ["a"], [])).toBe("fn");
    expect(scoreField("title", "string", "Lamp", "Chair")).toBe("fp");
    expect(scoreField("title", "string", "Lamp", "lamp")).toBe("tp");
    const counts: Counts = { tp: 0, fp: 0, fn: 0 };
    for (const outcome of ["tp", "fp", "fn"] as const) addOutcome(counts, outcome);
    expect(metrics(counts)).toEqual({ tp: 1, fp: 1, fn: 2, precision: 0.5, recall: 1 / 3, f1: 0.4 });
  });

  it("where labels are complete, counts a value for an absent field as a false positive only", () => {
    expect(labelsComplete("zyte-product-benchmark", "sku")).toBe(true);
    expect(labelsComplete("zyte-product-benchmark", "product_name")).toBe(false);
    expect(labelsComplete("swde", "sku")).toBe(false);
    expect(scoreField("sku", "string", null, "AB-12", true)).toBe("spurious");
    expect(scoreField("sku", "string", null, null, true)).toBeUndefined();
    expect(scoreField("sku", "string", null, "AB-12", false)).toBeUndefined();
    expect(scoreField("sku", "string", "AB-12", "AB-12", true)).toBe("tp");
    const counts: Counts = { tp: 0, fp: 0, fn: 0 };
    for (const outcome of ["tp", "spurious"] as const) addOutcome(counts, outcome);
    expect(metrics(counts)).toEqual({ tp: 1, fp: 1, fn: 0, precision: 0.5, recall: 1, f1: 2 / 3 });
  });

  it("reports zero rather than NaN when nothing was predicted", () => {
    expect(metrics({ tp: 0, fp: 0, fn: 3 })).toMatchObject({ precision: 0, recall: 0, f1: 0 });
  });
});

describe("string rules", () => {
  it("normalizes NFKC, entities, case, whitespace and surrounding punctuation", () => {
    expect(normalizeText("  «Ray&nbsp;Allen»  ")).toBe("ray allen");
    expect(normalizeText("ﬁne\n\tprint.")).toBe("fine print");
    expect(matches("player_name", "string", "Ray Allen&nbsp;&nbsp;#20&nbsp;&nbsp;SG", "ray allen #20 sg")).toBe(true);
  });

  it("accepts a word-token F1 of at least 0.8 and no less", () => {
    expect(tokenF1("a b c d e", "a b c d")).toBeCloseTo(8 / 9);
    expect(matches("t", "string", "one two three four five", "one two three four")).toBe(true);
    expect(matches("t", "string", "one two three", "one")).toBe(false);
    expect(tokenF1("one two three", "one two")).toBeCloseTo(0.8);
  });

  it("compares iso8601 fields by their first ten characters", () => {
    expect(matches("published_date_iso8601", "string", "2019-12-12", "2019-12-12T08:00:00+01:00")).toBe(true);
    expect(matches("published_date_iso8601", "string", "2019-12-12", "2019-12-13")).toBe(false);
  });

  it("accepts any of the alternatives", () => {
    const expected = { $any: ["PowerShot SX130 IS Compact Camera", "Canon PowerShot SX130"] };
    expect(matches("model", "string", expected, "Canon PowerShot SX130")).toBe(true);
    expect(matches("model", "string", expected, "Nikon")).toBe(false);
  });
});

describe("number, integer and boolean rules", () => {
  it("wants a price right to the cent and integers and booleans exactly", () => {
    expect(matches("price", "number", 179, 179.004)).toBe(true);
    expect(matches("price", "number", 179, 179.01)).toBe(false);
    expect(matches("count", "integer", 13, 13)).toBe(true);
    expect(matches("count", "integer", 13, 14)).toBe(false);
    expect(matches("in_stock", "boolean", true, true)).toBe(true);
    expect(matches("in_stock", "boolean", true, "true")).toBe(false);
    expect(matches("price", "number", 179, "179")).toBe(false);
  });
});

describe("lists and objects", () => {
  it("matches lists by one-to-one item F1 of at least 0.8", () => {
    expect(matches("genres", ["string"], ["Crime", "Thriller"], ["thriller", "crime"])).toBe(true);
    expect(matches("genres", ["string"], ["Crime", "Thriller"], ["Crime"])).toBe(false); // F1 2/3
    expect(matches("genres", ["string"], ["a", "b", "c", "d", "e"], ["a", "b", "c", "d"])).toBe(true); // F1 8/9
    // A duplicate prediction cannot match the same expected item twice.
    expect(listF1(["x", "y"], ["x", "x"], (e, p) => e === p)).toBe(0.5);
  });

  it("finds the best one-to-one pairing, not a greedy one", () => {
    // Greedy would pair "a b" with the first prediction and leave "a" unmatched.
    const loose = (e: string, p: string) => p.includes(e);
    expect(listF1(["a", "b"], ["a b", "a"], (e, p) => loose(e, p))).toBe(1);
  });

  it("matches objects when every labelled key matches", () => {
    const schema = { name: "string", rating: "number", note: "string" };
    expect(
      matches("review", schema, { name: "Ann", rating: 4, note: null }, { name: "ann", rating: 4, note: "x" }),
    ).toBe(true);
    expect(matches("review", schema, { name: "Ann", rating: 4 }, { name: "Ann", rating: 5 })).toBe(false);
    expect(matches("reviews", [schema], [{ name: "Ann", rating: 4 }], [{ name: "Ann", rating: 4, note: null }])).toBe(
      true,
    );
  });
});

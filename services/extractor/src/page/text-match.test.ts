import { describe, expect, it } from "vitest";
import { normalizeText } from "./text-match.js";

describe("normalizeText", () => {
  it("fold case, backslashed quotes and whitespace in plain text", () => {
    expect(normalizeText('  Trail\tSHOE\n\\"Pro\\"  ')).toBe('trail shoe "pro"');
  });

  it("fold compatibility forms, curly quotes, dashes and wide spaces beyond ASCII", () => {
    expect(normalizeText("\u201cＡｃｍｅ\u201d\u2014 it\u2019s\u00a0ﬁne\u3000now")).toBe('"acme"- it\'s fine now');
  });
});

import { describe, expect, it } from "vitest";
import { countTokens } from "./tokens.js";

describe("countTokens", () => {
  it("counts a page's special-token text as text instead of failing", () => {
    expect(countTokens("before <|endoftext|> and <|im_end|> after")).toBeGreaterThan(8);
  });

  it("counts a run without spaces in pieces: the sum of the pieces, near one count", () => {
    const run = "Ab1".repeat(40_000);
    const pieces = Array.from({ length: Math.ceil(run.length / 128) }, (_, i) => run.slice(i * 128, (i + 1) * 128));
    const text = `start ${run} end`;
    expect(countTokens(text)).toBe(
      countTokens("start ") + pieces.reduce((sum, piece) => sum + countTokens(piece), 0) + countTokens(" end"),
    );
    // Short texts are counted whole, as before.
    expect(countTokens("The quick brown fox.")).toBe(5);
  });
});

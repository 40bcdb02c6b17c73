import { WinnowError } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { toRenderError } from "./render-errors.js";

const state = { aborted: false, browserConnected: true, timeoutMs: 20_000 };

describe("toRenderError", () => {
  it("maps a crashed tab to page-too-large, not an internal error", () => {
    for (const message of ["page.goto: Page crashed", "page.content: Target crashed"]) {
      const mapped = toRenderError(new Error(message), state);
      expect(mapped).toBeInstanceOf(WinnowError);
      expect((mapped as WinnowError).type).toBe("page-too-large");
    }
  });

  it("leaves what it does not know as it is", () => {
    const unknown = new Error("something else");
    expect(toRenderError(unknown, state)).toBe(unknown);
  });
});

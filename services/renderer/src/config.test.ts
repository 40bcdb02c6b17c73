import { loadConfig } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { rendererConfigShape } from "./config.js";

describe("renderer configuration", () => {
  it("fails loading with WINNOW_EGRESS_ALLOW and its bad entry named", () => {
    expect(() => loadConfig(rendererConfigShape, { WINNOW_EGRESS_ALLOW: "127.0.0.0/8,nope" })).toThrow(
      /WINNOW_EGRESS_ALLOW: "nope" is neither/,
    );
  });
});

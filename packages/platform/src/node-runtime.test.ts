import { describe, expect, it } from "vitest";
import { unsupportedNodeWarning } from "./node-runtime.js";

describe("unsupportedNodeWarning", () => {
  it("says on Node.js 20 what to install, and nothing on 22 or later", () => {
    expect(unsupportedNodeWarning("20.19.0")).toBe(
      "Node.js 20.19.0 is past its end of life: Winnow supports Node.js 22 LTS. " +
        "Install it (nvm install 22, or nodejs 22 from your system's packages) and start again.",
    );
    for (const version of ["22.12.0", "24.1.0"]) expect(unsupportedNodeWarning(version)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { WinnowError } from "./problems.js";
import { MAX_URL_LENGTH, parseTargetUrl } from "./target-url.js";

function refusal(raw: string): { type: string; message: string; path: string | undefined } {
  try {
    parseTargetUrl(raw);
  } catch (error) {
    if (!(error instanceof WinnowError)) throw error;
    return { type: error.type, message: error.message, path: error.violations[0]?.path };
  }
  throw new Error(`${raw} was accepted`);
}

describe("parseTargetUrl: the rules every service applies to a page address", () => {
  it("accepts http(s), trims it and drops the fragment", () => {
    expect(parseTargetUrl("  https://shop.example/item?id=1#reviews ").href).toBe("https://shop.example/item?id=1");
    expect(parseTargetUrl("http://xn--bcher-kva.example/").hostname).toBe("xn--bcher-kva.example");
  });

  it.each([
    ["", "invalid-request", "url is required"],
    ["/relative/path", "invalid-request", "url must be an absolute http or https URL"],
    [
      `https://shop.example/${"a".repeat(MAX_URL_LENGTH)}`,
      "invalid-request",
      `url must be at most ${MAX_URL_LENGTH} characters`,
    ],
    ["ftp://shop.example/file", "url-not-allowed", "the ftp scheme is not allowed; use http or https"],
    ["file:///etc/passwd", "url-not-allowed", "the file scheme is not allowed; use http or https"],
    ["javascript:alert(1)", "url-not-allowed", "the javascript scheme is not allowed; use http or https"],
    ["http://user:secret@shop.example/", "url-not-allowed", "URLs with embedded credentials are not allowed"],
    ["http://user@shop.example/", "url-not-allowed", "URLs with embedded credentials are not allowed"],
  ])("refuses %j as %s: %s", (raw, type, message) => {
    expect(refusal(raw)).toEqual({ type, message, path: "/url" });
  });
});

import { describe, expect, it } from "vitest";
import { elementsUnder } from "./elements.js";
import { loadPage } from "./page.js";
import { selectorOf } from "./selector.js";

describe("page walks on hostile markup", () => {
  it("walk an element with 150,000 children without overflowing the stack", () => {
    const page = loadPage(
      `<body><div id="wide">${"<span>x</span>".repeat(150_000)}</div></body>`,
      "https://a.example/",
    );
    const body = page.$("body").get(0)!;
    expect(elementsUnder(body, 200_000)).toHaveLength(150_001);
    expect(selectorOf(page.$("span").last().get(0)!)).toBe("#wide > span:nth-of-type(150000)");
  });
});

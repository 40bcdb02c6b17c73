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

  it("read a page nested 20,000 levels deep as the same text, nested no deeper than 256", () => {
    const depth = 20_000;
    const page = loadPage(
      `<body><h1>Lamp</h1>${"<span>".repeat(depth)}<b>deep</b> text${"</span>".repeat(depth)}<p>after</p></body>`,
      "https://a.example/",
    );
    expect(page.$("body").text()).toBe("Lampdeep textafter");
    const deepest = page.$("b").get(0)!;
    let levels = 0;
    for (let node = deepest.parent; node; node = node.parent) levels += 1;
    expect(levels).toBeLessThanOrEqual(258);
    expect(elementsUnder(page.$("body").get(0)!, 100_000).length).toBeGreaterThan(depth);
  });
});

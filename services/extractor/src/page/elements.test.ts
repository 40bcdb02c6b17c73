import { describe, expect, it } from "vitest";
import { collapsed, elementsUnder, textOf } from "./elements.js";
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

describe("textOf reads text as a browser lays it out", () => {
  const text = (html: string) =>
    textOf(loadPage(`<body><div id="v">${html}</div></body>`, "https://a.example/").$("#v").get(0)!);

  it("never glues the text of blocks, cells, list items, line breaks or boxed inline elements", () => {
    expect(text("<h1>2010 Audi A6 Avant</h1><div>Specs and Features</div>")).toBe(
      "2010 Audi A6 Avant Specs and Features",
    );
    expect(text("3506B001<br><a href='/canon'>View other products</a>")).toBe("3506B001 View other products");
    expect(text("<ul><li>News</li><li>Team Report</li></ul><p>Blogs</p>")).toBe("News Team Report Blogs");
    expect(text("<table><tr><td>Weight</td><td>205 lbs</td></tr></table>")).toBe("Weight 205 lbs");
    expect(text("<span style='display: block'>Miami</span><span style='display:flex'>FL</span>")).toBe("Miami FL");
  });

  it("joins inline elements as written: one price stays one value", () => {
    expect(text("$<strong>399</strong><sup>.99</sup>")).toBe("$399.99");
    expect(text("<span>Pre</span><em>heat</em> <b>oven</b>")).toBe("Preheat oven");
  });
});

describe("collapsed", () => {
  it("make each whitespace run one space and trim, leaving single spaces as they are", () => {
    expect(collapsed(" Trail Shoe 3 ")).toBe("Trail Shoe 3");
    expect(collapsed("a  b\tc\nd\u00a0e \r\n f")).toBe("a b c d e f");
  });
});

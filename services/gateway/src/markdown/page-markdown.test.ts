import { describe, expect, it } from "vitest";
import { pageMarkdown } from "./page-markdown.js";

const PAGE_URL = "https://shop.example/shoes/ridgeline";

describe("pageMarkdown", () => {
  it("keeps the main landmark's content and leaves navigation, banners, sidebars, footers and scripts out", () => {
    const markdown = pageMarkdown(
      `<html><body><header><a href="/">Shop home</a></header><nav><a href="/a">Menu item</a></nav>
      <main><h1>Ridgeline</h1><p>A trail shoe.</p><script>track()</script><form><input name="q"></form></main>
      <aside>Related shoes</aside><footer>Copyright</footer></body></html>`,
      PAGE_URL,
    );
    expect(markdown).toBe("# Ridgeline\n\nA trail shoe.");
  });

  it("makes links and images absolute against the page's URL, and drops links that are no address", () => {
    const markdown = pageMarkdown(
      `<main><p><a href="../boots?x=1">Boots</a> <img src="/img/r.jpg" alt="Ridgeline"> <a href="javascript:void(0)">Open</a></p></main>`,
      PAGE_URL,
    );
    expect(markdown).toBe("[Boots](https://shop.example/boots?x=1) ![Ridgeline](https://shop.example/img/r.jpg) Open");
  });

  it("keeps an article's own header and footer (its byline and date)", () => {
    const markdown = pageMarkdown(
      `<body><nav>Menu</nav><article><header><p>By Ada</p></header><p>Text.</p><footer>Posted May 1</footer></article></body>`,
      PAGE_URL,
    );
    expect(markdown).toBe("By Ada\n\nText.\n\nPosted May 1");
  });

  it("reads the whole body when several articles share it (a listing), without its furniture", () => {
    const markdown = pageMarkdown(
      `<body><header>Logo</header><article><h2>One</h2></article><article><h2>Two</h2></article><footer>Legal</footer></body>`,
      PAGE_URL,
    );
    expect(markdown).toBe("## One\n\n## Two");
  });

  it("answers an empty string for a page with no content", () => {
    expect(pageMarkdown("", PAGE_URL)).toBe("");
  });
});

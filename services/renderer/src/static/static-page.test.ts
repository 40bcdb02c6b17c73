import { describe, expect, it } from "vitest";
import { inspectStaticPage } from "./static-page.js";

const ARTICLE = "<p>A complete article with plenty of text that a reader can see without any JavaScript at all.</p>";

describe("inspectStaticPage", () => {
  it.each([
    ["an empty body", "<html><body></body></html>"],
    ["a script-only shell", `<html><body><script src="/app.js"></script></body></html>`],
    ["near-empty text with a script", `<html><body><p>Loading…</p><script>boot()</script></body></html>`],
    ["an empty React root", `<html><body><header>Shop</header><div id="root"></div>${ARTICLE}</body></html>`],
    ["an empty Next.js root", `<html><body><div id="__next"></div>${ARTICLE}</body></html>`],
    ["an empty Angular root", `<html><body><app-root></app-root>${ARTICLE}</body></html>`],
    [
      "a noscript asking for JavaScript",
      `<html><body>${ARTICLE}<noscript>You need to enable JavaScript to run this app.</noscript></body></html>`,
    ],
  ])("sends %s to the browser", (_name, html) => {
    expect(inspectStaticPage(html).needsBrowser).toBe(true);
  });

  it.each([
    ["a complete article", `<html><body>${ARTICLE}<script>track()</script></body></html>`],
    [
      "a short page with JSON-LD only",
      `<html><head><script type="application/ld+json">{}</script></head><body><h1>Hello from a static page</h1></body></html>`,
    ],
    ["a filled framework root", `<html><body><div id="root"><main>${ARTICLE}</main></div></body></html>`],
    [
      "a noscript about something else",
      `<html><body>${ARTICLE}<noscript><img src="/pixel.gif"></noscript></body></html>`,
    ],
  ])("keeps %s static", (_name, html) => {
    expect(inspectStaticPage(html).needsBrowser).toBe(false);
  });

  it("reads the title, with entities decoded and whitespace collapsed", () => {
    expect(
      inspectStaticPage("<html><head><title>\n  Fish &amp;\n Chips </title></head><body>x</body></html>").title,
    ).toBe("Fish & Chips");
  });
});

describe("inspectStaticPage on deep markup", () => {
  // 100,000 nested elements took minutes when every tag walked its ancestors (and the parser's own work grows with
  // depth), blocking every other render meanwhile: inspection stops where browsers stop nesting.
  const deep = (inner: string, depth = 100_000) => `${"<div>".repeat(depth)}${inner}${"</div>".repeat(depth)}`;

  it("judges a page nested deeper than browsers nest by what it showed before", () => {
    const shown = `<html><head><title>Deep</title></head><body>${ARTICLE}${deep("<p>more</p>")}</body></html>`;
    expect(inspectStaticPage(shown)).toEqual({ needsBrowser: false, title: "Deep" });
    // Nothing shown before the nesting: the browser, which stops nesting at 512 levels, reads it.
    expect(inspectStaticPage(`<html><body>${deep(ARTICLE)}</body></html>`).needsBrowser).toBe(true);
    const unclosed = `<html><body>${ARTICLE}${"<span>".repeat(100_000)}${"</b>".repeat(100_000)}</body></html>`;
    expect(inspectStaticPage(unclosed).needsBrowser).toBe(false);
  });

  it("still reads an empty mount point and content within browsers' nesting", () => {
    expect(inspectStaticPage(`<html><body>${ARTICLE}${deep(`<div id="root"></div>`, 400)}</body></html>`)).toEqual({
      needsBrowser: true,
      title: "",
    });
    expect(inspectStaticPage(`<html><body>${deep(ARTICLE, 400)}</body></html>`).needsBrowser).toBe(false);
  });
});

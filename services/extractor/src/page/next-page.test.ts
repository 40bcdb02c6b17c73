import { describe, expect, it } from "vitest";
import { nextPageUrl } from "./next-page.js";
import { loadPage } from "./page.js";

const next = (body: string, url = "https://shop.example/tents?page=2") =>
  nextPageUrl(loadPage(`<html><head></head><body>${body}</body></html>`, url));

describe("the page's next listing page", () => {
  it("takes a declared rel=next, resolved against the page", () => {
    expect(next('<a href="/a">A</a>', "https://shop.example/tents")).toBeUndefined();
    expect(
      nextPageUrl(
        loadPage('<link rel="next" href="/tents?page=3"><a href="/x">x</a>', "https://shop.example/tents?page=2"),
      ),
    ).toBe("https://shop.example/tents?page=3");
  });

  it('takes a pager\'s "Next", its arrows and its words in other languages, not "Next article"', () => {
    expect(next('<a href="/story/9">Next article: tents</a><li class="next"><a href="page-3.html">next</a></li>')).toBe(
      "https://shop.example/page-3.html",
    );
    expect(next('<a href="/c?p=1">‹</a> <a href="/c?p=3">›</a>')).toBe("https://shop.example/c?p=3");
    expect(next('<a href="/c/2">Suivant »</a>')).toBe("https://shop.example/c/2");
    expect(next('<a href="/c/3" aria-label="Next page"><svg></svg></a>')).toBe("https://shop.example/c/3");
    expect(next('<a rel="prev" href="/c/1">»</a>')).toBeUndefined();
  });

  it("takes the number after the current one in a numbered pager", () => {
    const pager =
      '<div class="pages"><a href="/l/1">1</a> <strong>2</strong> <a href="/l/3">3</a> <a href="/l/4">4</a></div>';
    expect(next(pager, "https://shop.example/l/2")).toBe("https://shop.example/l/3");
    const marked =
      '<ul><li><a href="/x/a">1</a></li><li><a aria-current="page" href="/x/b">2</a></li><li><a href="/x/c">3</a></li></ul>';
    expect(next(marked, "https://shop.example/x/b")).toBe("https://shop.example/x/c");
  });

  it("steps the address's page number or record offset by the smallest step the page links to", () => {
    const offsets =
      '<a href="?f=1&amp;start=100">3</a><a href="?f=1&amp;start=50">go</a><a href="?f=2&amp;start=50">o</a>';
    expect(next(offsets, "https://forum.example/v?f=1&start=0")).toBe("https://forum.example/v?f=1&start=50");
    expect(next('<a href="/blog/page/2/">older</a>', "https://news.example/blog/")).toBe(
      "https://news.example/blog/page/2/",
    );
    expect(next('<a href="/tents?page=1">back</a>')).toBeUndefined();
    // Another path's number (a topic's latest post), or a post id on the first page, is no page step.
    expect(
      next('<a href="v2?p=47#47"><img title="View latest post"></a>', "https://forum.example/v?f=1&start=450"),
    ).toBeUndefined();
    expect(next('<a href="/?p=123">A post</a>', "https://blog.example/")).toBeUndefined();
    expect(next('<a href="/?p=2">2</a>', "https://blog.example/")).toBe("https://blog.example/?p=2");
  });

  it("takes a load-more link that is a plain URL, not a script button", () => {
    expect(next('<a href="/feed?cursor=abc">Load more</a>', "https://news.example/feed")).toBe(
      "https://news.example/feed?cursor=abc",
    );
    expect(next('<a href="javascript:more()">Load more</a>', "https://news.example/feed")).toBeUndefined();
  });

  it("never answers the page itself", () => {
    expect(next('<a href="/tents?page=2#top">Next</a>')).toBeUndefined();
  });
});

import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { readByline, readCredit } from "./byline.js";

const byline = (body: string, headline?: string) => readByline(load(`<html><body>${body}</body></html>`), headline);

describe("readByline", () => {
  it("reads the date written just below the heading, not the ones in the text or the sidebar", () => {
    const { date } = byline(`
      <aside>Archiv: 01.01.2015</aside>
      <article><h1>Neue Brücke eröffnet</h1><p class="meta">Freitag, 06.07.2018, 10:29</p>
      <p>Die Brücke wurde am 3. März 2017 geplant.</p></article>`);
    expect(date).toMatchObject({ value: "2018-07-06", confidence: 0.7 });
  });

  it("reads beside the article's heading, not a logo's, and skips hidden text", () => {
    const html = `<h1>Site Logo</h1><p>12. Mai 2012</p><div><h1>Liebe Menschen</h1><span class="updated rich-snippet-hidden">2022-12-07</span><p>Publiziert am 13. Januar 2014</p></div>`;
    expect(byline(html, "Liebe Menschen").date?.value).toBe("2014-01-13");
  });

  it("takes a date above the heading when none follows it, and none far from it", () => {
    expect(
      byline(`<p>Startseite / Aktuelles / 08.11.2021</p><h1>Fachtag</h1><p>Text ohne Datum.</p>`).date?.value,
    ).toBe("2021-11-08");
    expect(byline(`<h1>Title</h1><p>${"words ".repeat(200)} May 2, 2019</p>`).date).toBeUndefined();
    expect(byline(`<p>No heading, posted May 2, 2019</p>`).date).toBeUndefined();
  });

  it("reads the author a page marks nearest its heading, without the words around the name", () => {
    const { author } = byline(`
      <header><a href="/author/site-admin/">Admin menu</a></header>
      <article><h1>Rust</h1><span class="byline">by <span class="author vcard"><a class="url fn n" href="/authors/jake/">Jake Goulding</a></span></span>
      <div class="comments"><a rel="author" href="/author/x/">Commenter</a></div></article>`);
    expect(author).toMatchObject({ value: "Jake Goulding", confidence: 0.7 });
    expect(
      byline(`<h1>Heizung</h1><ul><li class="meta-author"><span>Von Alexander Rosenkranz</span></li></ul>`).author
        ?.value,
    ).toBe("Alexander Rosenkranz");
    expect(byline(`<h1>T</h1><p class="author">Von Julia Müller | 12.03.2022</p>`).author?.value).toBe("Julia Müller");
  });

  it("reads a byline written as text just below the heading, not prose that starts alike", () => {
    expect(byline(`<h1>Wärmepumpe</h1><ul><li><span>Von Alexander Rosenkranz</span></li></ul>`).author?.value).toBe(
      "Alexander Rosenkranz",
    );
    expect(byline(`<h1>Fleisch</h1><p>von fleisch und milch</p><p>Von Anfang</p>`).author).toBeUndefined();
    expect(byline(`<p>Von Alexander Rosenkranz</p><h1>Above the heading</h1>`).author).toBeUndefined();
  });

  it("finds no author in comments, sidebars or bios, nor in a bare 'by'", () => {
    const { author } = byline(`
      <h1>Title</h1><p class="author">Von</p><aside><a rel="author" href="/author/a/">Sidebar Person</a></aside>
      <ol class="commentlist"><li><span class="comment-author">Someone</span></li></ol>`);
    expect(author).toBeUndefined();
  });

  it("reads a credit in the article's paragraphs below the heading, at a paragraph's end or before a separator", () => {
    const credit = (body: string) => readCredit(load(`<html><body>${body}</body></html>`), undefined)?.value;
    expect(credit(`<h1>T</h1><p>Eine Kolumne von Nils Pickert</p>`)).toBe("Nils Pickert");
    expect(credit(`<h1>T</h1><p>By Kim Lee | Forests News</p>`)).toBe("Kim Lee");
    expect(credit(`<p>Written by: Ann Example</p><h1>T</h1><p>Text.</p>`)).toBeUndefined();
    expect(credit(`<h1>T</h1><p>By contrast, forests store carbon.</p><p>Von Anfang an</p>`)).toBeUndefined();
    expect(credit(`<h1>T</h1><figure><p>Foto von Max Muster</p></figure><p>Photo by Jane Doe</p>`)).toBeUndefined();
    expect(credit(`<h1>T</h1><div class="comments"><p>Written by: Ann Example</p></div>`)).toBeUndefined();
  });
});

import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { nameHints } from "../../schema/field-names.js";
import { readLabels } from "./labels.js";
import { labelsExactly, MIN_CONFIDENCE, matchLabel, withoutOwnLabel } from "./match.js";
import { fieldHints } from "./name-concepts.js";

const labels = (html: string) =>
  readLabels(load(html)).map(({ label, value, items }) => ({ label, value, ...(items.length > 0 ? { items } : {}) }));

describe("readLabels", () => {
  it("reads two-column rows, definition lists and label elements with their values", () => {
    const html = `
      <table><tr><th>Weight</th><td>205 lbs.</td></tr><tr><td>a</td><td>b</td><td>c</td></tr></table>
      <dl><dt>Location</dt><dd>San Francisco, CA</dd></dl>
      <ul><li><b>ISBN-13:</b> 978-0307269997</li></ul>
      <div><h4>Genres:</h4> <a href="/g/crime">Crime</a> | <a href="/g/thriller">Thriller</a></div>
      <div><span>Cuisine:</span></div><div>not this</div>`;
    expect(labels(html)).toEqual([
      { label: "Weight", value: "205 lbs." },
      { label: "Location", value: "San Francisco, CA" },
      { label: "ISBN-13", value: "978-0307269997" },
      { label: "Genres", value: "Crime | Thriller", items: ["Crime", "Thriller"] },
    ]);
  });

  it("reads no label from a row of two column headers", () => {
    const html = `<table><tr><th>Author</th><th>Message</th></tr><tr><td>kim</td><td>Any tips?</td></tr>
      <tr><td>lee</td><td>Treat it early.</td></tr></table>`;
    expect(labels(html).map(({ label }) => label)).not.toContain("Author");
  });

  it("reads a value laid out in lines as separate words, not glued to its neighbour", () => {
    const html = `<table><tr><th>Part number</th><td>3506B001<br><a href="/b/canon">View other products from Canon</a></td></tr></table>
      <dl><dt>Model</dt><dd><div>A6 Avant</div><div>Specs and Features</div></dd></dl>`;
    expect(labels(html).map(({ value }) => value)).toEqual([
      "3506B001 View other products from Canon",
      "A6 Avant Specs and Features",
    ]);
  });

  it("reads a label element that ends in a spaced dash as it reads one with a colon", () => {
    const html = `<ul><li><strong>Product Code - </strong>39139301</li><li><b>Well-known</b> text</li></ul>`;
    expect(labels(html)).toEqual([{ label: "Product Code", value: "39139301" }]);
  });

  it("follows a label out of its wrapper, past an empty icon, within a row", () => {
    const html = `<div><span class="txt"><span>MSRP:</span> <a class="help" href="#"></a></span> <span class="msrp">$9,970</span></div>
      <ul><li><div class="txt"><span>MPG:</span> <a class="help"></a></div><div class="value">27 City / 36 Hwy</div></li></ul>`;
    expect(labels(html)).toEqual([
      { label: "MSRP", value: "$9,970" },
      { label: "MPG", value: "27 City / 36 Hwy" },
    ]);
  });

  it("reads 'Label: value' lines, but not across blocks or from long text", () => {
    const html = `<p>Publisher: Knopf</p><div>Published: May 25, 2010<div>nested</div></div>
      <p>${"A sentence that is far too long to be a label before its colon".repeat(2)}: value</p>`;
    expect(labels(html)).toEqual([{ label: "Publisher", value: "Knopf" }]);
  });

  it("reads a line holding an empty element (a spacer) as a 'Label: value' line", () => {
    expect(labels(`<div>Published: May 25, 2010<span class="gap"> </span></div>`)).toEqual([
      { label: "Published", value: "May 25, 2010" },
    ]);
  });

  it("ends a value where the next label of its line starts, spaced apart from it", () => {
    const html = `<p>Posted: Mon Jan 12, 2004 1:06 am<span>&nbsp;</span>&nbsp; &nbsp;Subject: Re: Spare parts</p>
      <p>Posted: Tue Jan 13, 2004 9:10 am&nbsp; &nbsp;Subject: </p><p>Title: Star Wars: A New Hope</p><p>Listed: 4 May &nbsp; &nbsp;by the owner</p>`;
    expect(labels(html)).toEqual([
      { label: "Posted", value: "Mon Jan 12, 2004 1:06 am" },
      { label: "Subject", value: "Re: Spare parts" },
      { label: "Posted", value: "Tue Jan 13, 2004 9:10 am" },
      { label: "Title", value: "Star Wars: A New Hope" },
      { label: "Listed", value: "4 May by the owner" },
    ]);
  });

  it("reads a heading followed by text in the same block as a form-like label", () => {
    expect(labels(`<div><h4>Motion Picture Rating (<a>MPAA</a>)</h4> Rated R for violence. </div>`)).toEqual([
      { label: "Motion Picture Rating (MPAA)", value: "Rated R for violence." },
    ]);
  });

  it("lets labels readers see outweigh hidden ones, which would otherwise make the match doubtful", () => {
    const html = `<div class="popover" style="display:none"><ul><li><b>Publisher:</b> Knopf</li></ul></div>
      <ul><li><b>Publisher:</b> Vintage (June 23, 2009)</li></ul><p hidden>Edition: Audio</p>`;
    const found = readLabels(load(html));
    expect(found.map(({ label, hidden }) => [label, hidden])).toEqual([
      ["Publisher", true],
      ["Publisher", false],
      ["Edition", true],
    ]);
    expect(matchLabel(nameHints("publisher"), found)).toEqual({ value: found[1], confidence: 0.8 });
    expect(matchLabel(nameHints("edition"), found)?.value.value).toBe("Audio");
  });
});

describe("ordinals in a field's name", () => {
  const found = readLabels(
    load(`<div><p>Posted: 2 May 2024</p><p>First reply</p></div><div><p>Posted: 3 May 2024</p><p>Second</p></div>`),
  );

  it("reads `first_…` as the first of a labelled block the page repeats, with no doubt from the others", () => {
    expect(fieldHints("first_post_time")).toMatchObject({ subject: ["date", "posted"], first: true });
    expect(matchLabel(fieldHints("first_post_time"), found)).toEqual({ value: found[0], confidence: 0.75 });
    // Without the ordinal the repeated label with other values is a doubt, as for a second offer.
    expect(matchLabel(fieldHints("post_time"), found)?.confidence).toBeLessThan(MIN_CONFIDENCE);
  });

  it("keeps `first_name` a given name and `first_aid` as written", () => {
    expect(fieldHints("first_name")).toEqual({ subject: ["first", "name"] });
    expect(fieldHints("first_aid").first).toBeUndefined();
  });
});

describe("product labels", () => {
  it("matches a SKU by the words shops label it with, and tells a label said exactly from a plural heading", () => {
    const found = readLabels(
      load(`<table><tr><th>Artikelnummer</th><td>AB-123</td></tr></table><dl><dt>ASIN</dt><dd>B000TEST01</dd></dl>`),
    );
    expect(matchLabel(nameHints("sku"), found)?.value.value).toBe("AB-123");
    expect(labelsExactly(nameHints("sku"), "Article no.")).toBe(true);
    expect(labelsExactly(nameHints("brand"), "Brand")).toBe(true);
    expect(labelsExactly(nameHints("brand"), "Brands")).toBe(false);
  });

  it("reads a value that carries its own label as the text after it", () => {
    expect(withoutOwnLabel("See all of the brand: Acme", nameHints("brand"))).toBe("Acme");
    expect(withoutOwnLabel("Ver mais artigos da Marca: Acme", nameHints("brand"))).toBe("Acme");
    expect(withoutOwnLabel("Acme: Outdoor Gear", nameHints("brand"))).toBe("Acme: Outdoor Gear");
  });
});

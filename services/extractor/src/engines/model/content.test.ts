import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { urlsWanted, writeModelContent } from "./content.js";

const render = (html: string, url = "https://shop.example/products/lamp") => writeModelContent(loadPage(html, url));

const PAGE = `<!doctype html><html><head>
  <title>Desk Lamp | Shop</title>
  <meta property="og:title" content="Desk Lamp">
  <meta name="description" content="A bright lamp.">
  <meta name="viewport" content="width=device-width">
  <script type="application/ld+json">
    { "@context": "https://schema.org", "@type": "Product", "name": "Desk Lamp",
      "offers": { "@type": "Offer", "price": "19.99" } }
  </script>
  <style>body { color: red }</style>
</head><body>
  <nav><a href="/">Home</a> <a href="/cart">Cart</a></nav>
  <div id="cookie-banner">We use cookies. <button>Accept</button></div>
  <main>
    <h1>Desk Lamp</h1>
    <p>A <strong>bright</strong>   lamp for
       your desk. <a href="/specs?id=1">Full specs</a></p>
    <img src="/img/lamp.jpg" alt="The lamp">
    <h2>Features</h2>
    <ul><li>Dimmable</li><li>USB <em>powered</em><ul><li>5 V</li></ul></li></ul>
    <table>
      <tr><th>Size</th><th>Weight</th></tr>
      <tr><td>30 cm</td><td>1.2 kg</td></tr>
      <tr><td>a|b</td></tr>
    </table>
    <dl><dt>Colour</dt><dd>Black</dd></dl>
    <script>window.track("x")</script>
  </main>
  <aside>Related: <a href="/other">Other lamp</a></aside>
  <footer>© Shop Ltd</footer>
</body></html>`;

describe("writeModelContent", () => {
  const { text } = render(PAGE);

  it("starts with the title, URL and the structured data block", () => {
    expect(
      text.startsWith("Title: Desk Lamp | Shop\nURL: https://shop.example/products/lamp\n\n--- structured data ---\n"),
    ).toBe(true);
    expect(text).toContain(
      'JSON-LD: {"@type":"Product","name":"Desk Lamp","offers":{"@type":"Offer","price":"19.99"}}',
    );
    expect(text).toContain("og:title: Desk Lamp");
    expect(text).toContain("description: A bright lamp.");
    expect(text).not.toContain("viewport");
  });

  it("renders headings, paragraphs, lists and absolute links and images", () => {
    expect(text).toContain("# Desk Lamp\n\nA bright lamp for your desk. [Full specs](https://shop.example/specs?id=1)");
    expect(text).toContain("![The lamp](https://shop.example/img/lamp.jpg)");
    expect(text).toContain("## Features\n\n- Dimmable\n- USB powered\n  - 5 V");
    expect(text).toContain("Colour: Black");
  });

  it("writes a list's items that a framework wraps in elements of its own", () => {
    const { text } = render(`<body><ul class="cards">
      <course-card><li><h3>Excel Basics</h3><p>Kim Lee</p></li></course-card>
      <course-card><li><h3>R for Data Science</h3><p>Ana Ruiz</p></li></course-card>
    </ul></body>`);
    expect(text).toContain("Excel Basics");
    expect(text).toContain("R for Data Science");
    expect(text).toContain("Ana Ruiz");
  });

  it("keeps the machine-readable values a page states beside or instead of its text", () => {
    const { text } = render(`<body><article>
      <p>Posted <time datetime="2021-11-12T08:00:00+01:00">12. Nov. 2021</time> by <span itemprop="author">Kim</span></p>
      <p>Price: <span itemprop="price" content="24.99">24,99 €</span> <time datetime="2021">2021</time></p>
      <meta itemprop="dateModified" content="2021-11-13"><link itemprop="availability" href="https://schema.org/InStock">
    </article></body>`);
    expect(text).toContain("12. Nov. 2021 (2021-11-12T08:00:00+01:00)");
    expect(text).toContain("24,99 € (24.99)");
    expect(text).toContain("dateModified: 2021-11-13");
    expect(text).toContain("availability: https://schema.org/InStock");
    // Nothing is repeated where the text already says it.
    expect(text).not.toContain("2021 (2021)");
  });

  it("writes a number a star widget states only in its class, once, with its other classes as its label", () => {
    const { text } = render(`<body><article class="product_pod"><h3>Dune</h3>
      <p class="star-rating Three"><i class="icon-star"></i><i class="icon-star"></i></p>
      <p class="stars-4">4 of 5</p><div class="card">Plain</div></article></body>`);
    expect(text).toContain("(star-rating: 3)");
    // A widget that writes its number says it already.
    expect(text).not.toContain("(class: 4)");
    expect(text).not.toContain(": 4)");
  });

  it("shows the structured data's URLs only where the schema wants them, and each meta text once", () => {
    const html = `<head><title>Lamp</title>
      <meta name="description" content="A bright lamp."><meta property="og:description" content="A bright lamp.">
      <meta property="og:image" content="https://cdn.example/lamp.jpg"><meta property="og:image:width" content="1200"><meta name="twitter:card" content="summary">
      <script type="application/ld+json">{"@type": "Product", "name": "Lamp", "image": ["https://cdn.example/a.jpg", "https://cdn.example/b.jpg"],
        "url": "https://shop.example/lamp", "offers": {"availability": "https://schema.org/InStock"}}</script></head><body><h1>Lamp</h1></body>`;
    const plain = writeModelContent(loadPage(html, "https://shop.example/lamp"), { links: false, images: false }).text;
    expect(plain).toContain(
      'JSON-LD: {"@type":"Product","name":"Lamp","offers":{"availability":"https://schema.org/InStock"}}',
    );
    expect(plain.match(/A bright lamp\./g)).toHaveLength(1);
    expect(plain).not.toMatch(/cdn\.example|og:image|twitter:card/);
    const wanting = writeModelContent(loadPage(html, "https://shop.example/lamp"), { links: true, images: true }).text;
    expect(wanting).toContain('"image":"https://cdn.example/a.jpg","url":"https://shop.example/lamp"');
    expect(wanting).toContain("og:image: https://cdn.example/lamp.jpg");
  });

  it("shows a long text the page shows anyway only once, and structured data's text without HTML escapes", () => {
    const steps = "Whisk the cream and the condensed milk in a large bowl until light and foamy, then churn it.";
    const html = `<head><title>Gelato</title><script type="application/ld+json">{"@type": "Recipe", "name": "Gelato",
      "recipeIngredient": ["&#188; cup cream"], "recipeInstructions": ["${steps}", "Freeze it overnight, covered, so that it sets."]}</script></head>
      <body><h1>Gelato</h1><ol><li>${steps}</li></ol></body>`;
    const { text } = writeModelContent(loadPage(html, "https://food.example/gelato"), { links: false, images: false });
    expect(text).toContain('"recipeIngredient":["¼ cup cream"]');
    expect(text).toContain(
      '"recipeInstructions":["Whisk the cream and the condensed milk in … (in the page text)","Freeze it overnight, covered, so that it sets."]',
    );
    expect(text.match(/until light and foamy/g)).toHaveLength(1);
  });

  it("keeps tables as pipe tables", () => {
    expect(text).toContain("| Size | Weight |\n| --- | --- |\n| 30 cm | 1.2 kg |\n| a\\|b | |");
  });

  it("drops scripts, styles, navigation, cookie banners and page furniture", () => {
    for (const gone of ["window.track", "color: red", "Home", "cookies", "Accept", "Related", "Shop Ltd"])
      expect(text).not.toContain(gone);
  });

  it("leaves what it drops in the document, for the engines and template learning that read it after", () => {
    const page = loadPage(PAGE, "https://shop.example/products/lamp");
    const html = page.$.html();
    expect(writeModelContent(page).text).toBe(text);
    expect(page.$.html()).toBe(html);
  });

  it("leaves out list items and table rows that are boilerplate, though their list or table is shown", () => {
    const { text: shown } = render(
      `<ul><li>Lamp</li><li class="newsletter">Sign up</li></ul><table><tr><td>Size</td></tr><tr class="sidebar"><td>Ad</td></tr></table>`,
    );
    expect(shown).toContain("- Lamp");
    expect(shown).toContain("| Size |");
    expect(shown).not.toMatch(/Sign up|Ad/);
  });

  it("keeps a footer inside an article, where bylines live", () => {
    const { text: article } = render(
      "<article><h1>News</h1><p>Body.</p><footer>By Ann Lee</footer></article><footer>Site footer</footer>",
    );
    expect(article).toContain("By Ann Lee");
    expect(article).not.toContain("Site footer");
  });

  it("resolves links against <base href> and leaves out javascript: and fragment links", () => {
    const { text: linked } = render(
      '<head><base href="https://cdn.example/base/"></head><body><p><a href="page">Page</a> <a href="javascript:void(0)">Click</a> <a href="#top">Top</a> <img src="data:image/png;base64,xx" data-src="real.png" alt="Lazy"></p></body>',
    );
    expect(linked).toContain(
      "[Page](https://cdn.example/base/page) Click Top ![Lazy](https://cdn.example/base/real.png)",
    );
  });

  it("keeps only absolute links when the page URL is unknown", () => {
    const { text: linked } = render('<p><a href="/rel">Rel</a> <a href="https://x.example/abs">Abs</a></p>', "");
    expect(linked).toContain("Rel [Abs](https://x.example/abs)");
    expect(linked).not.toContain("URL:");
  });

  it("cuts the content into sections at headings, after the structured data", () => {
    const { header, sections, text } = render(PAGE);
    expect(header).toBe("Title: Desk Lamp | Shop\nURL: https://shop.example/products/lamp");
    expect(sections[0]).toMatch(/^--- structured data ---/);
    expect(sections[1]).toMatch(/^--- page text ---\n# Desk Lamp/);
    expect(sections[2]).toMatch(/^## Features/);
    expect(text).toBe([header, ...sections].join("\n\n"));
  });

  it("compacts JSON-LD: no site-wide nodes, linking keys or image objects", () => {
    const { text } = render(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
      {"@type":"WebSite","@id":"#site","name":"Shop","potentialAction":{"@type":"SearchAction"}},
      {"@type":"BreadcrumbList","itemListElement":[]},
      {"@type":"Recipe","@id":"#r","name":"Dip","isPartOf":{"@id":"#site"},"author":{"@id":"#p"},
       "image":[{"@type":"ImageObject","url":"https://a.example/1.jpg","width":800},"https://a.example/2.jpg"]}]}</script><p>x</p>`);
    expect(text).toContain('JSON-LD: {"@graph":[{"@type":"Recipe","name":"Dip","image":"https://a.example/1.jpg"}]}');
  });

  it("drops comment threads, related posts, share bars and sidebars named the usual way", () => {
    const { text } = render(`<article><h1>Post</h1><p>Body text.</p>
      <div class="entry-content shared-content">Kept.</div>
      <div id="comments"><h3>12 comments</h3><p>Nice!</p></div>
      <div class="jp-relatedposts"><a href="/other">Other post</a></div>
      <ul class="share-links"><li>Share on X</li></ul></article>
      <div class="widget-area sidebar">Archives</div>`);
    expect(text).toContain("Body text.");
    expect(text).toContain("Kept.");
    for (const gone of ["12 comments", "Other post", "Share on X", "Archives"]) expect(text).not.toContain(gone);
  });

  it("writes link and image URLs only when a field may want them", () => {
    expect(urlsWanted(parseSchema({ title: "string", price: "number" }))).toEqual({ links: false, images: false });
    expect(urlsWanted(parseSchema({ items: [{ image_url: "string" }] }))).toEqual({ links: false, images: true });
    expect(urlsWanted(parseSchema({ seller: { website: "string" } }))).toEqual({ links: true, images: false });
    const html = '<p>See <a href="/specs">the specs</a>.</p><img src="/a.jpg" alt="A">';
    const { text } = writeModelContent(loadPage(html, "https://a.example/"), { links: false, images: false });
    expect(text).toContain("See the specs.");
    expect(text).not.toContain("https://a.example/specs");
    expect(text).not.toContain("a.jpg");
  });

  it("keeps the records of a list the schema asks for, even in a block named as boilerplate, each a section of its own", () => {
    const html = `<body><main><h1>Post</h1><p>Body text.</p></main>
      <div id="comments"><h2>Comments</h2>
        <div class="c"><h3>ann</h3><p>First!</p><p>Long reply.</p></div>
        <div class="c"><span>bob</span><h3>Re: first</h3><p>Second.</p></div>
      </div></body>`;
    const page = loadPage(html, "https://blog.example/post");
    expect(writeModelContent(page, { links: false, images: false }).text).not.toContain("First!");
    const records = page
      .$(".c")
      .toArray()
      .map((element) => [element]);
    const { sections, text } = writeModelContent(page, { links: false, images: false }, records);
    expect(sections).toContain("### ann\n\nFirst!\n\nLong reply.");
    // A heading inside a record does not cut it.
    expect(sections).toContain("bob\n\n### Re: first\n\nSecond.");
    expect([...text].filter((c) => c < " " && c !== "\n")).toEqual([]);
  });

  it("marks records of list items and table rows, and records of two sibling elements", () => {
    const html = `<body><ul><li>One <b>1</b></li><li>Two <b>2</b></li></ul>
      <table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>
      <div><p class="t">Title x</p><p class="m">meta x</p><p class="t">Title y</p><p class="m">meta y</p></div></body>`;
    const page = loadPage(html, "https://a.example/");
    const pairs = page
      .$(".t")
      .toArray()
      .map((title) => [title, page.$(title).next().get(0)!]);
    const records = [
      ...page
        .$("li")
        .toArray()
        .map((li) => [li]),
      ...page
        .$("tr")
        .toArray()
        .map((tr) => [tr]),
      ...pairs,
    ];
    const { sections } = writeModelContent(page, { links: false, images: false }, records);
    expect(sections).toEqual(
      expect.arrayContaining([
        "- One 1",
        "- Two 2",
        "| a | 1 |",
        "| b | 2 |",
        "Title x\n\nmeta x",
        "Title y\n\nmeta y",
      ]),
    );
  });
});

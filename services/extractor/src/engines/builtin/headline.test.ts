import { describe, expect, it } from "vitest";
import { loadPage, type StructuredData } from "../../page/page.js";
import { pageHeadline } from "./headline.js";

const page = (
  title: string | undefined,
  h1: string | string[] | undefined,
  meta: Record<string, string> = {},
): StructuredData => ({
  jsonLd: [],
  meta: new Map(Object.entries(meta)),
  metaElements: new Map(),
  title,
  h1s: h1 === undefined ? [] : [h1].flat(),
  h1Elements: [],
});

describe("pageHeadline", () => {
  it("trusts an <h1> that the title repeats", () => {
    expect(pageHeadline(page("Emden - Sehenswürdigkeiten | Reisen", "Emden - Sehenswürdigkeiten"))).toMatchObject({
      value: "Emden - Sehenswürdigkeiten",
      confidence: 0.85,
    });
  });

  it("drops the site's name from a title, known or short and last", () => {
    expect(
      pageHeadline(
        page("Caisse de solidarité &amp; plus - Info'Com-CGT", undefined, { "og:site_name": "Info'Com-CGT" }),
      )?.value,
    ).toBe("Caisse de solidarité & plus");
    expect(pageHeadline(page("A long article title here | Site", undefined))?.value).toBe("A long article title here");
    expect(pageHeadline(page("News | example.com", undefined))?.value).toBe("News");
  });

  it("does not take the site's name in an <h1> for the heading", () => {
    const result = pageHeadline(page("Was wurde aus Six Sigma? – sladisworld", "sladisworld"));
    expect(result?.value).toBe("Was wurde aus Six Sigma?");
  });

  it("finds the heading among several <h1>s by the title, past a logo", () => {
    expect(
      pageHeadline(page("Kleine Schafskunde | Mäscot das Schaf", ["Mäscot das Schaf", "Kleine Schafskunde"])),
    ).toMatchObject({ value: "Kleine Schafskunde", confidence: 0.85 });
  });

  it("takes a page's only <h1> over a title worded for search engines", () => {
    const result = pageHeadline(
      page("Wärmepumpe im Altbau - Wann es sich lohnt | heizung.de", "Eignet sich eine Wärmepumpe im Altbau?", {
        "og:title": "Wärmepumpe im Altbau",
      }),
    );
    expect(result).toMatchObject({ value: "Eignet sich eine Wärmepumpe im Altbau?", confidence: 0.75 });
  });

  it("takes the one <h1> left beside a logo <h1> as the page's only heading", () => {
    const result = pageHeadline(
      page("Minions with stencils - roller & paint", ["Papaganda", "Painting minions with stencils and a roller"], {
        "og:site_name": "Papaganda",
      }),
    );
    expect(result).toMatchObject({ value: "Painting minions with stencils and a roller", confidence: 0.75 });
  });

  it("is unsure of an <h1> among several that nothing confirms", () => {
    expect(pageHeadline(page("bumm film GmbH", ["NBC Ulica Brand Spot", "ServusTV"]))?.confidence).toBeLessThan(0.6);
  });

  it("drops a year or format tag after the heading", () => {
    expect(pageHeadline(page("Se7en (1995) - IMDb", "Se7en (1995)"))?.value).toBe("Se7en");
    expect(
      pageHeadline(page("Amazon.com: Rules of Deception", "Rules of Deception [Mass Market Paperback]"))?.value,
    ).toBe("Rules of Deception");
    expect(pageHeadline(page("2 Dollar Burrito (But Cheaper)", "2 Dollar Burrito (But Cheaper)"))?.value).toBe(
      "2 Dollar Burrito (But Cheaper)",
    );
  });

  it("is unsure of a title whose parts it cannot tell apart", () => {
    expect(pageHeadline(page("Bee Simulator | Datenbank für Multiplayergames", undefined))?.confidence).toBeLessThan(
      0.6,
    );
  });
  it("does not take an <h1> that links to the site's home page (a logo) for the heading", () => {
    const blog = (logo: string) =>
      loadPage(
        `<html><head><title>Pocket Gardens: Pruning roses in March</title></head><body>
          <h1 class="title">${logo}</h1>
          <div class="post"><h1>Pruning roses in <b>March</b></h1></div></body></html>`,
        "https://pocket-gardens.example/2024/03/pruning.html",
      ).structured;
    expect(pageHeadline(blog(`<a href="https://pocket-gardens.example/">Pocket Gardens</a>`))?.value).toBe(
      "Pruning roses in March",
    );
    expect(pageHeadline(blog(`<span><a href="/" rel="home">Pocket Gardens</a></span>`))?.value).toBe(
      "Pruning roses in March",
    );
    // A link elsewhere is no logo: a heading may link to its own story.
    const linked = loadPage(
      `<html><head><title>Pruning roses in March</title></head><body><h1><a href="/2024/03/pruning.html">Pruning roses in March</a></h1></body></html>`,
      "https://pocket-gardens.example/2024/03/pruning.html",
    ).structured;
    expect(pageHeadline(linked)?.value).toBe("Pruning roses in March");
  });

  it("keeps the part of a title after a separator when the page names its site otherwise", () => {
    expect(
      pageHeadline(
        page(undefined, undefined, { "og:title": "Dignity of life – a project", "og:site_name": "Big Questions" }),
      )?.value,
    ).toBe("Dignity of life – a project");
    expect(
      pageHeadline(
        page(undefined, undefined, {
          "og:title": "A long look at the dignity of life – Big Questions Blog",
          "og:site_name": "Big Questions",
        }),
      )?.value,
    ).toBe("A long look at the dignity of life");
  });

  it("reads a heading without its kicker, and its parts laid out apart", () => {
    const heading = (h1: string) =>
      pageHeadline(loadPage(`<html><body>${h1}</body></html>`, "https://news.example/a").structured);
    expect(
      heading(
        `<h1 class="article-header"><span class="article-header__roofline">Diesel engines</span> How to refill AdBlue</h1>`,
      )?.value,
    ).toBe("How to refill AdBlue");
    expect(heading(`<h1><span class="kicker">Weather</span><span>Storm reaches the coast</span></h1>`)?.value).toBe(
      "Storm reaches the coast",
    );
    expect(heading(`<h1>Storm reaches the coast<br>Ferries stay in port</h1>`)?.value).toBe(
      "Storm reaches the coast Ferries stay in port",
    );
  });
});

import { load } from "cheerio";
import { describe, expect, it } from "vitest";
import { readCards } from "./microformats.js";

describe("readCards", () => {
  it("reads an hCard as an organization with its contact details", () => {
    const $ = load(`<div class="vcard"><h1 class="fn org">Abilene Christian University</h1>
      <div class="adr"><span class="street-address">ACU Box 29100</span> <span class="locality">Abilene</span>, <abbr class="region">TX</abbr></div>
      <div class="tel"><span class="type">Work</span><span class="value">(800) 460-6228</span></div>
      <span class="email">Admissions E-mail: <span>info@admissions.acu.edu</span></span>
      <span class="url"> Web site: <span>http://www.acu.edu</span></span></div>`);
    expect(readCards($)).toEqual([
      {
        "@type": "Organization",
        name: "Abilene Christian University",
        telephone: "(800) 460-6228",
        email: "info@admissions.acu.edu",
        url: "http://www.acu.edu",
        address: {
          "@type": "PostalAddress",
          streetAddress: "ACU Box 29100",
          addressLocality: "Abilene",
          addressRegion: "TX",
        },
      },
    ]);
  });

  it("reads a byline's card as a person, microformats2 too, and skips empty cards", () => {
    const $ =
      load(`<span class="author vcard"><a class="url fn n" href="https://blog.example/author/kim/">Kim Lee</a></span>
      <div class="h-card"><span class="p-name">Ana</span><span class="p-tel">+41 44 000 00 00</span></div><div class="vcard"></div>`);
    expect(readCards($)).toEqual([
      { "@type": "Person", name: "Kim Lee", url: "https://blog.example/author/kim/" },
      { "@type": "Person", name: "Ana", telephone: "+41 44 000 00 00" },
    ]);
  });
});

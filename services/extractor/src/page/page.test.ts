import { expect, it } from "vitest";
import { loadPage } from "./page.js";

it("reads what the page declares about itself: its base, JSON-LD of any type case, meta tags, title and headings", () => {
  const page = loadPage(
    `<html><head><title> Trail  Shoe | Shop </title><base href="/catalog/"><base href="https://other.example/">
    <script type="APPLICATION/LD+JSON">{"@type": "Product", "name": "Trail Shoe"}</script>
    <script type="application/json">{"not": "linked data"}</script>
    <meta property="og:title" content="Trail Shoe"><meta property="OG:TITLE" content="Second"><meta name="robots">
    </head><body><svg><title>Icon</title></svg><h1> </h1><h1>Trail <span class="kicker">New</span>Shoe</h1>
    <script type="application/ld+json">{"@type": "Brand", "name": "Northpeak",}</script></body></html>`,
    "https://shop.example/p/1",
  );
  expect(page.baseUrl?.href).toBe("https://shop.example/catalog/");
  expect(page.structured.jsonLd).toEqual([
    { "@type": "Product", name: "Trail Shoe" },
    { "@type": "Brand", name: "Northpeak" },
  ]);
  expect([...page.structured.meta]).toEqual([["og:title", "Trail Shoe"]]);
  expect(page.structured.title).toBe("Trail Shoe | Shop");
  expect(page.structured.h1s).toEqual(["Trail Shoe"]);
});

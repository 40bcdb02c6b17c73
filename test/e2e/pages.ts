import type { FixturePage } from "../support/fixture-site.js";

/** Fixture pages for the end-to-end tests. */
export const PAGES: Record<string, FixturePage> = {
  // Static HTML whose facts are in JSON-LD, as most shops publish them.
  "/product": {
    body: `<!doctype html><html><head><title>Ridgeline Trail Shoe | Northpeak</title>
<script type="application/ld+json">${JSON.stringify({
      "@context": "https://schema.org",
      "@type": "Product",
      name: "Ridgeline Trail Shoe",
      brand: { "@type": "Brand", name: "Northpeak" },
      offers: { "@type": "Offer", price: "129.99", priceCurrency: "USD" },
    })}</script></head>
<body><h1>Ridgeline Trail Shoe</h1><p>A light trail shoe with a rock plate.</p><p>Price: $129.99</p></body></html>`,
  },
  // An app shell: nothing but a script until JavaScript runs.
  "/js-article": {
    body: `<!doctype html><html><head><title>Loading…</title></head><body><div id="app"></div>
<script>
  setTimeout(() => {
    document.title = "Rivers Run Backwards in Spring";
    const data = document.createElement("script");
    data.type = "application/ld+json";
    data.textContent = JSON.stringify({ "@context": "https://schema.org", "@type": "NewsArticle",
      headline: "Rivers Run Backwards in Spring", author: { "@type": "Person", name: "Ada Brook" },
      datePublished: "2026-03-14T09:00:00Z" });
    document.head.appendChild(data);
    document.getElementById("app").innerHTML = "<article><h1>Rivers Run Backwards in Spring</h1><p>By Ada Brook</p></article>";
  }, 50);
</script></body></html>`,
  },
  "/gone": { status: 404, body: "<h1>Gone</h1>" },
};

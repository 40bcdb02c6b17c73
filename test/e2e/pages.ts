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
  // A recipe whose values come from every kind of source: JSON-LD, meta tags, the heading, the byline, a labelled
  // table, repeated blocks.
  "/recipe": {
    body: `<!doctype html><html><head><title>Ridge Stew | Cook Site</title>
<meta property="og:site_name" content="Cook Site">
<meta name="description" content="A slow stew for cold days.">
<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Recipe", name: "Ridge Stew", recipeIngredient: ["2 carrots", "1 onion", "500 g beef"] })}</script>
</head><body><header><a href="/">Cook Site</a></header>
<article>
  <h1>Ridge Stew</h1>
  <p class="byline">By <a rel="author" href="/author/ada">Ada Brook</a> · March 3, 2024</p>
  <table class="facts"><tr><th>Cuisine</th><td>Alpine</td></tr><tr><th>Servings</th><td>4 people</td></tr></table>
  <p>Serve with crusty bread and a green salad.</p>
  <section class="reviews"><h2>Reviews</h2>
    <div class="review"><span class="review-author">Kim Lee</span> <span class="review-rating">4</span></div>
    <div class="review"><span class="review-author">Sam Ortiz</span> <span class="review-rating">5</span></div>
  </section>
</article></body></html>`,
  },
};

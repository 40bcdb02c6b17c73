/**
 * The load benchmarks' normal page: a static product page whose JSON-LD the
 * builtin engine reads, about 3 KB, a different product for each `i`.
 */
export const PRODUCT_SCHEMA = { product_name: "string", brand: "string", price_usd: "number" };

export const productPage = (i: number) => `<!doctype html><html><head><title>Trail Shoe ${i} | Northpeak</title>
<script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Product",
  name: `Trail Shoe ${i}`,
  brand: { "@type": "Brand", name: "Northpeak" },
  offers: { "@type": "Offer", price: String(100 + (i % 50)), priceCurrency: "USD" },
  aggregateRating: { "@type": "AggregateRating", ratingValue: "4.5", reviewCount: "12" },
})}</script></head><body><h1>Trail Shoe ${i}</h1>${"<p>A light trail shoe with a rock plate and a 6 mm drop.</p>".repeat(40)}</body></html>`;

/**
 * The load benchmarks' normal page: a static product page whose JSON-LD the
 * builtin engine reads, about 3 KB, a different product for each `i`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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

/** A loopback site of product pages at /p/<n> (404 elsewhere), for the batch benchmarks; its origin, and `site` to close. */
export async function serveProductPages(): Promise<{ site: Server; origin: string }> {
  const site = createServer((req, res) => {
    const [, n] = /^\/p\/(\d+)$/.exec(req.url ?? "") ?? [];
    if (n === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(productPage(Number(n)));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  return { site, origin: `http://127.0.0.1:${(site.address() as AddressInfo).port}` };
}

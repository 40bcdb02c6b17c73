/**
 * A one-page shop served on loopback by `npm start`, so the printed curl
 * example works on any machine, online or not. Its address (and only that
 * address) is added to the renderer's egress allowlist.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const PRODUCT = {
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Ridgeline Trail Running Shoe",
  brand: { "@type": "Brand", name: "Northpeak" },
  description: "A light trail shoe with a rock plate and a 6 mm drop.",
  sku: "NP-RTS-42",
  offers: { "@type": "Offer", price: "129.99", priceCurrency: "USD", availability: "https://schema.org/InStock" },
  aggregateRating: { "@type": "AggregateRating", ratingValue: "4.6", reviewCount: "212" },
};

/** The sample shop page; the docs' examples run against it too (test/e2e/doc-examples.test.ts). */
export const SAMPLE_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Ridgeline Trail Running Shoe | Northpeak</title>
  <meta name="description" content="${PRODUCT.description}">
  <meta property="og:title" content="${PRODUCT.name}">
  <script type="application/ld+json">${JSON.stringify(PRODUCT)}</script>
</head>
<body>
  <h1>${PRODUCT.name}</h1>
  <p>${PRODUCT.description}</p>
  <p class="price">Price: $129.99 · In stock · Rated 4.6 of 5 by 212 runners</p>
</body>
</html>`;

export interface SampleSite {
  url: string;
  /** host:port, for WINNOW_EGRESS_ALLOW. */
  hostPort: string;
  close(): Promise<void>;
}

export async function startSampleSite(): Promise<SampleSite> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(SAMPLE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/products/ridgeline`,
    hostPort: `127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

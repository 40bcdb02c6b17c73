/**
 * Firecrawl's own JavaScript SDK pointed at the stack, as a user moving from Firecrawl would: a JSON-format scrape
 * answers the page's values exactly as POST /scrape does (v2 and v1), a markdown scrape answers the page's main
 * content, and an option Winnow does not support is a 400 naming it.
 */
import Firecrawl, { SdkError } from "@mendable/firecrawl-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const SHOE = `<!doctype html><html><head><title>Ridgeline | Shop</title>
<script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Ridgeline Trail Shoe",
  offers: { "@type": "Offer", price: "129.99", priceCurrency: "USD" },
})}</script></head>
<body><nav><a href="/">Home</a> <a href="/shoes">Shoes</a></nav>
<main><h1>Ridgeline Trail Shoe</h1><p>Price: $129.99</p><p>See <a href="/shoes/ridgeline/reviews">the reviews</a>.</p></main>
<footer>© Shop</footer></body></html>`;

const SCHEMA = {
  type: "object",
  properties: {
    product_name: { type: "string", description: "the product's name" },
    price_usd: { type: "number" },
    colour: { type: ["string", "null"] },
  },
};

let run: RunningStack;
let firecrawl: Firecrawl;
let shoeUrl: string;

describe("the Firecrawl SDK against Winnow", () => {
  beforeAll(async () => {
    run = await launchStack({ "/shoes/ridgeline": { body: SHOE } });
    firecrawl = new Firecrawl({ apiKey: run.stack.apiKey, apiUrl: run.stack.gatewayUrl });
    shoeUrl = `${run.site.origin}/shoes/ridgeline`;
  });
  afterAll(async () => {
    await run?.stop();
  });

  it("answers a v2 JSON-format scrape with the values POST /scrape answers", async () => {
    const winnow = await (await run.scrape({ url: shoeUrl, schema: SCHEMA })).json();
    expect(winnow).toMatchObject({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 });
    const document = await firecrawl.scrape(shoeUrl, { formats: [{ type: "json", schema: SCHEMA }] });
    expect(document.json).toEqual(winnow);
    expect(document.markdown).toBeUndefined();
    expect(document.metadata).toMatchObject({ title: "Ridgeline | Shop", sourceURL: shoeUrl, statusCode: 200 });
  });

  it("answers v1's scrapeUrl with jsonOptions the same", async () => {
    const winnow = await (await run.scrape({ url: shoeUrl, schema: SCHEMA })).json();
    const answer = await firecrawl.v1.scrapeUrl(shoeUrl, { formats: ["json"], jsonOptions: { schema: SCHEMA } });
    expect(answer).toMatchObject({ success: true, json: winnow });
  });

  it("answers a markdown scrape with the page's main content, links absolute, navigation and footer out", async () => {
    const document = await firecrawl.scrape(shoeUrl, { formats: ["markdown"] });
    expect(document.markdown).toBe(
      `# Ridgeline Trail Shoe\n\nPrice: $129.99\n\nSee [the reviews](${run.site.origin}/shoes/ridgeline/reviews).`,
    );
    expect(document.json).toBeUndefined();
  });

  it("gives the same markdown in POST /scrape's evidence envelope with options.formats, the data unchanged", async () => {
    const plain = await (await run.scrape({ url: shoeUrl, schema: SCHEMA })).json();
    const res = await run.scrape({
      url: shoeUrl,
      schema: SCHEMA,
      options: { formats: ["json", "markdown"], evidence: true },
    });
    const envelope = await res.json();
    expect(envelope.data).toEqual(plain);
    const document = await firecrawl.scrape(shoeUrl, { formats: ["markdown"] });
    expect(envelope.markdown).toBe(document.markdown);
  });

  it("refuses an option Winnow does not support with 400 naming it", async () => {
    const refused = await firecrawl
      .scrape(shoeUrl, { formats: ["markdown"], actions: [{ type: "wait", milliseconds: 500 }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SdkError);
    expect((refused as SdkError).status).toBe(400);
    expect((refused as SdkError).message).toContain("actions");
  });

  it("states what the answer cost in POST /scrape's headers, which usage counts", async () => {
    const res = await fetch(`${run.stack.gatewayUrl}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${run.stack.apiKey}` },
      body: JSON.stringify({ url: shoeUrl, formats: [{ type: "json", schema: SCHEMA }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-winnow-path")).toBe("builtin");
    expect(res.headers.get("x-winnow-tokens-in")).toBe("0");
    expect(res.headers.get("winnow-field-status")).toContain("/colour");
  });

  it("answers a bad key as Firecrawl does: 401 with success false", async () => {
    const res = await fetch(`${run.stack.gatewayUrl}/v2/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer wnw_not_a_key" },
      body: JSON.stringify({ url: shoeUrl }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, code: "unauthorized" });
  });
});

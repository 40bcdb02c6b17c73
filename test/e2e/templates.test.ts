import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { FixturePage } from "../support/fixture-site.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const SCHEMA = { name: "string", sku: "string" };

/** A shop's product page: the facts in JSON-LD (what templates learn from without a model) and on the page. */
function product(name: string, sku: string): FixturePage {
  const jsonLd = JSON.stringify({ "@context": "https://schema.org", "@type": "Product", name, sku });
  return {
    body: `<!doctype html><html><head><title>${name} | Shop</title><script type="application/ld+json">${jsonLd}</script></head>
<body><div id="header"><a href="/">Shop</a></div>
<div class="product"><h1 class="title">${name}</h1><p class="code">${sku}</p><p>Free shipping over $50</p></div>
<div id="footer">© Shop</div></body></html>`,
  };
}

const PAGES = {
  "/p/1": product("Teapot", "TP-0001"),
  "/p/2": product("Kettle", "KT-0002"),
  "/p/3": product("Stock Jar", "SJ-1001"),
};

let run: RunningStack;
let otherKey: string;

beforeAll(async () => {
  // No model: the builtin engine answers, and the values the page states in its JSON-LD teach.
  run = await launchStack(PAGES);
  otherKey = await run.newAccountKey();
});

afterAll(async () => {
  await run?.stop();
});

async function scrape(path: string, apiKey: string) {
  const response = await run.scrape({ url: `${run.site.origin}${path}`, schema: SCHEMA }, { "x-api-key": apiKey });
  expect(response.status).toBe(200);
  return { engine: response.headers.get("x-winnow-engine"), data: await response.json() };
}

it("one account's scrapes teach a template that answers its pages only", async () => {
  for (const path of ["/p/1", "/p/2"]) expect((await scrape(path, run.stack.apiKey)).engine).toBe("builtin");
  // Learning settles after each answer: the account's next page of the layout is soon answered by its template.
  await vi.waitFor(async () => expect((await scrape("/p/3", run.stack.apiKey)).engine).toBe("template"), {
    timeout: 10_000,
    interval: 100,
  });
  // The same page for another account: the engines answer it, whatever the first account taught.
  expect(await scrape("/p/3", otherKey)).toEqual({ engine: "builtin", data: { name: "Stock Jar", sku: "SJ-1001" } });
});

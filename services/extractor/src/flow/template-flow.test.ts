import { signPage } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { TEST_PAGE_SIGNING_KEY } from "../../../../test/support/caller-tokens.js";
import { SHARED_TENANT } from "../templates/signature.js";
import { isTrusted } from "../templates/store.js";
import { learningFlow } from "./extraction.test-helpers.js";
import { type TemplateScope, templateScope } from "./template-scope.js";

const SCHEMA = { name: "string", sku: "string" };
const TENANT = "acct-a";
const PAGE = { url: "https://shop.example/mug", html: "<html><body><h1>Mug</h1></body></html>" };

/** A request for PAGE as the gateway passes a page the renderer signed. */
function signed(scope: { tenant: string; learn: boolean }) {
  return { ...scope, ...PAGE, pageSignature: signPage(TEST_PAGE_SIGNING_KEY, PAGE.url, PAGE.html) };
}

/** One shop's product layout: a shipping note beside the product; the SKU in JSON-LD and under a label, when given. */
function productPage(page: { name: string; shipping: string; jsonLdSku?: string; labelSku?: string }): string {
  const jsonLd = page.jsonLdSku
    ? `<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Product", name: page.name, sku: page.jsonLdSku })}</script>`
    : "";
  const label = page.labelSku ? `<table class="specs"><tr><th>SKU</th><td>${page.labelSku}</td></tr></table>` : "";
  return `<html><head>${jsonLd}</head><body>
    <div id="header"><a href="/">Shop</a></div>
    <div class="product"><h1 class="title">${page.name}</h1><p class="shipping">${page.shipping}</p>${label}</div>
    <div id="footer">© Shop</div>
  </body></html>`;
}

/** The flow with a template learner and the builtin engine; a page through it with its learning settled. */
function flow() {
  const { store, extract } = learningFlow();
  return {
    store,
    extract: (html: string, url: string, scope: TemplateScope | undefined, schema: object = SCHEMA) =>
      extract(html, url, { scope, schema }),
  };
}

const TEACH = { tenant: TENANT, learn: true };

describe("a template answer against the page's own statements", () => {
  /** Pages whose structured data calls the shipping note their SKU: they teach a locator on the note. */
  async function poisoned() {
    const { store, extract } = flow();
    for (const [i, name] of ["Teapot", "Kettle"].entries())
      await extract(
        productPage({ name, shipping: "Free over $50", jsonLdSku: "Free over $50" }),
        `https://shop.example/bad/${i}`,
        TEACH,
      );
    /** The template's locators for the SKU: all of them read the shipping note. */
    const sku = async () => {
      const [template] = await store.list("shop.example");
      const key = { tenant: TENANT, host: "shop.example", signature: template!.signature };
      return (await store.locators(key)).filter((record) => record.field === "sku:string");
    };
    expect((await sku()).filter(isTrusted)).not.toEqual([]);
    return { store, extract, sku };
  }

  it("yields to the page's JSON-LD and demotes the locator, which then answers no page", async () => {
    const { extract, sku } = await poisoned();
    const page = productPage({
      name: "Stock Jar",
      shipping: "Free over $50",
      jsonLdSku: "SJ-1001",
      labelSku: "SJ-1001",
    });
    const answer = await extract(page, "https://shop.example/p/1001", TEACH);
    expect(answer.data).toEqual({ name: "Stock Jar", sku: "SJ-1001" });
    expect(answer.templated.has("sku")).toBe(false);
    expect(answer.templated.get("name")?.value).toBe("Stock Jar");
    // Each locator the bad pages taught now has a disagreement; the page's own SKU taught new ones, not yet trusted.
    const taught = (await sku()).filter((record) => record.agree === 2);
    expect(taught).not.toEqual([]);
    for (const record of taught) expect(record.disagree).toBe(1);
    expect((await sku()).filter(isTrusted)).toEqual([]);
    // Demoted: on a page that states no SKU, the template no longer answers one.
    const plain = await extract(
      productPage({ name: "Mug", shipping: "Free over $50" }),
      "https://shop.example/p/2",
      TEACH,
    );
    expect(plain.templated.has("sku")).toBe(false);
    expect(plain.data.sku).toBeNull();
  });

  it("yields to the value's visible label", async () => {
    const { extract } = await poisoned();
    const page = productPage({ name: "Stock Jar", shipping: "Free over $50", labelSku: "SJ-1001" });
    const answer = await extract(page, "https://shop.example/p/1001", { tenant: TENANT, learn: false });
    expect(answer.data.sku).toBe("SJ-1001");
    expect(answer.templated.has("sku")).toBe(false);
  });

  it("stands against a label not proven for its kind of value: a labelled price can be a list price", async () => {
    const { extract } = flow();
    const schema = { name: "string", price_usd: "number" };
    const shop = (name: string, price: string, labelled = "") =>
      `<html><head>${labelled ? "" : `<script type="application/ld+json">${JSON.stringify({ "@type": "Product", name, offers: { price } })}</script>`}</head><body>
        <div id="header"><a href="/">Shop</a></div>
        <div class="product"><h1 class="title">${name}</h1><span class="sale">$${price}</span>${labelled}</div>
      </body></html>`;
    for (const [i, name] of ["Teapot", "Kettle"].entries())
      await extract(shop(name, `${10 + i}.50`), `https://shop.example/p/${i}`, TEACH, schema);
    const listed = shop("Mug", "8.00", `<table class="offers"><tr><th>Price</th><td>$9.99</td></tr></table>`);
    const answer = await extract(listed, "https://shop.example/p/9", TEACH, schema);
    expect(answer.templated.get("price_usd")?.value).toBe(8);
  });

  it("stands where the page states the same", async () => {
    const { extract } = await poisoned();
    const page = productPage({ name: "Tray", shipping: "Free over $50", jsonLdSku: "Free over $50" });
    expect((await extract(page, "https://shop.example/p/3", TEACH)).templated.get("sku")?.value).toBe("Free over $50");
  });
});

describe("template scope", () => {
  const pages = ["Teapot", "Kettle", "Mug"].map((name, i) => ({
    html: productPage({ name, shipping: "Ships in 2 days", jsonLdSku: `SKU-${i}` }),
    url: `https://shop.example/p/${i}`,
  }));

  it("a page that may not teach (HTML a caller supplied) teaches nothing", async () => {
    const { store, extract } = flow();
    for (const page of pages) {
      const answer = await extract(page.html, page.url, { tenant: TENANT, learn: false });
      expect(answer.templated.size).toBe(0);
    }
    expect(await store.list("shop.example")).toEqual([]);
  });

  it("one account's pages teach its templates only; without a scope none are read", async () => {
    const { extract } = flow();
    for (const page of pages.slice(0, 2)) await extract(page.html, page.url, TEACH);
    const [, , third] = pages;
    expect((await extract(third!.html, third!.url, { tenant: "acct-b", learn: false })).templated.size).toBe(0);
    expect((await extract(third!.html, third!.url, undefined)).templated.size).toBe(0);
    expect(
      (await extract(third!.html, third!.url, { tenant: TENANT, learn: false })).templated.get("name")?.value,
    ).toBe("Mug");
  });

  it("is the request's tenant, or the shared one when templates are shared", () => {
    const own = { shared: false, pageSigningKeys: [TEST_PAGE_SIGNING_KEY] };
    const shared = { shared: true, pageSigningKeys: [TEST_PAGE_SIGNING_KEY] };
    expect(templateScope(signed({ tenant: TENANT, learn: true }), own)).toEqual({ tenant: TENANT, learn: true });
    expect(templateScope(signed({ tenant: "", learn: false }), own)).toBeUndefined();
    expect(templateScope(signed({ tenant: TENANT, learn: true }), shared)).toEqual({
      tenant: SHARED_TENANT,
      learn: true,
    });
    expect(templateScope(signed({ tenant: "", learn: false }), shared)).toEqual({
      tenant: SHARED_TENANT,
      learn: false,
    });
    expect(() => templateScope(signed({ tenant: "", learn: true }), shared)).toThrow(/learn needs a tenant/);
    for (const tenant of ["a b", "x".repeat(129), "acct\n"])
      expect(() => templateScope(signed({ tenant, learn: false }), own)).toThrow(/tenant must be/);
  });

  it("learns only from a page the renderer signed: exactly its URL and HTML, under the extractor's key", () => {
    const own = { shared: false, pageSigningKeys: [TEST_PAGE_SIGNING_KEY] };
    const page = signed({ tenant: TENANT, learn: true });
    expect(templateScope(page, own)?.learn).toBe(true);
    expect(templateScope({ ...page, pageSignature: new Uint8Array() }, own)?.learn).toBe(false);
    expect(templateScope({ ...page, html: `${page.html}<p>planted</p>` }, own)?.learn).toBe(false);
    expect(templateScope({ ...page, url: "https://shop.example/other" }, own)?.learn).toBe(false);
    expect(templateScope(page, { shared: false, pageSigningKeys: ["another-key-0123456789abcdefghijkl"] })?.learn).toBe(
      false,
    );
    expect(templateScope(page, { shared: false, pageSigningKeys: [] })?.learn).toBe(false);
  });

  it("learns from pages signed with either key while the signing key rotates", () => {
    const page = signed({ tenant: TENANT, learn: true });
    const rotating = ["the-new-key-0123456789abcdefghijkl", TEST_PAGE_SIGNING_KEY];
    expect(templateScope(page, { shared: false, pageSigningKeys: rotating })?.learn).toBe(true);
  });
});

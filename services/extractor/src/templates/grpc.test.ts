import { createLogger, promiseClient, signPage } from "@winnow/platform";
import { Engine } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { load } from "cheerio";
import { afterAll, expect, it, vi } from "vitest";
import { TEST_PAGE_SIGNING_KEY } from "../../../../test/support/caller-tokens.js";
import { startFakeLlm } from "../../../../test/support/fake-llm.js";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import { LlmEngine } from "../engines/model/llm.js";
import { startTestExtractor } from "../extractor.test-helpers.js";
import { PROVEN_RELIABILITY, reliabilityOf } from "../flow/prefill-calibration.js";
import { SHARED_TENANT } from "./signature.js";
import { MemoryTemplateStore } from "./store.js";

const logger = createLogger("extractor-test", "silent");
const SCHEMA = JSON.stringify({ model: "string", price_usd: "number" });
const PAGES = [
  { model: "Canon PowerShot SX130", price: "$179.00" },
  { model: "Nikon Coolpix S8100", price: "$249.95" },
  { model: "Sony Cyber-shot W350", price: "$129.99" },
];
const html = (page: { model: string; price: string }) =>
  `<html><body><div id="nav"><a href="/">Cameras</a></div><div class="product"><h2 class="name">${page.model}</h2><p>Price: <span class="amount">${page.price}</span></p></div></body></html>`;

// The scripted model answers what the page it is sent shows.
const fake = await startFakeLlm((body) => {
  const text = body.messages.map((m) => m.content).join("\n");
  const page = PAGES.find((p) => text.includes(p.model))!;
  return { model: page.model, price_usd: Number(page.price.replace(/[$,]/g, "")) };
});

/** An extractor over real gRPC with its own template store; `shared`: EXTRACT_TEMPLATES_SHARED. */
async function startExtractor(shared: boolean) {
  const store = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
  const llm = new LlmEngine(
    { baseUrl: fake.baseUrl, apiKey: undefined, model: "fake-model", maxRetries: 0, timeoutMs: TEST_TIMEOUT_MS / 2 },
    logger,
  );
  return {
    store,
    ...(await startTestExtractor(llm, {
      templates: store,
      sharedTemplates: shared,
      pageSigningKey: TEST_PAGE_SIGNING_KEY,
    })),
  };
}

const own = await startExtractor(false);
const { store, client } = own;

afterAll(async () => {
  await own.close();
  await fake.close();
});

/** As the gateway sends a page its renderer fetched: the account's, and it may teach. */
const GATEWAY = { tenant: "acct-a", learn: true };

/** The page as the renderer signed it, unless the scope brings a signature of its own. */
async function extract(
  page: { model: string; price: string },
  url: string,
  scope: { tenant: string; learn: boolean; pageSignature?: Uint8Array } = GATEWAY,
  to = client,
) {
  const options = { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: true };
  const body = html(page);
  return promiseClient(to).extract(
    {
      url,
      html: body,
      schemaJson: SCHEMA,
      taskDescription: "",
      options,
      pageWarnings: [],
      wantNextPage: false,
      knownFields: [],
      pageSignature: signPage(TEST_PAGE_SIGNING_KEY, url, body),
      fieldHints: {},
      fieldRules: {},
      ...scope,
    },
    { deadline: new Date(Date.now() + TEST_TIMEOUT_MS / 2) },
  );
}

/** Learning settles after the answer; the next page waits until the store has counted this one. */
async function learned(host: string, pages: number, tenant = GATEWAY.tenant, from = store) {
  await vi.waitFor(async () => expect((await from.list(host)).find((t) => t.tenant === tenant)?.pages).toBe(pages), {
    timeout: TEST_TIMEOUT_MS / 4,
    interval: 10,
  });
}

it("answers a template's third page from what the first two taught, with no model call, and says so", async () => {
  for (const [i, page] of PAGES.slice(0, 2).entries()) {
    const response = await extract(page, `https://cameras.example/p/${i}`);
    expect(response.engine).toBe(Engine.ENGINE_LLM);
    await learned("cameras.example", i + 1);
  }
  const calls = fake.requests.length;
  const third = await extract(PAGES[2]!, "https://cameras.example/p/2");
  expect(fake.requests.length).toBe(calls);
  expect(third.engine).toBe(Engine.ENGINE_TEMPLATE);
  expect(JSON.parse(third.dataJson)).toEqual({ model: "Sony Cyber-shot W350", price_usd: 129.99 });
  expect(third.warnings).toEqual([
    {
      code: "template",
      message: expect.stringMatching(/^2 of 2 fields answered by the page's learned template \(model, price_usd\)/),
      path: "",
    },
  ]);
  // Each value's evidence gives the element the template read, by a CSS selector that finds it, and its text.
  expect(third.evidence).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ pointer: "/model", source: "template", text: "Sony Cyber-shot W350", grounded: true }),
      expect.objectContaining({
        pointer: "/price_usd",
        source: "template",
        text: expect.stringContaining("129.99"),
        grounded: true,
      }),
    ]),
  );
  const $ = load(html(PAGES[2]!));
  for (const evidence of third.evidence) expect($(evidence.selector).text()).toBe(evidence.text);
  // Its locators held on this site's pages; what the caller is told is what templates earned across sites.
  for (const [pointer, kind] of [
    ["/model", "text"],
    ["/price_usd", "number"],
  ] as const) {
    const evidence = third.evidence.find((e) => e.pointer === pointer)!;
    const acrossSites = reliabilityOf("template", kind);
    expect(evidence.confidence).toBeLessThanOrEqual(acrossSites);
    expect(evidence.status).toBe(acrossSites >= PROVEN_RELIABILITY ? "found" : "unverified");
  }

  // The same layout on another host learned nothing: the model answers.
  const elsewhere = await extract(PAGES[2]!, "https://mirror.example/p/2");
  expect(elsewhere.engine).toBe(Engine.ENGINE_LLM);
  expect(fake.requests.length).toBe(calls + 1);
});

it("answers one account's pages from its own templates only, and an internal caller's from none", async () => {
  for (const [i, page] of PAGES.slice(0, 2).entries()) {
    await extract(page, `https://tenants.example/p/${i}`);
    await learned("tenants.example", i + 1);
  }
  const calls = fake.requests.length;
  const other = await extract(PAGES[2]!, "https://tenants.example/p/2", { tenant: "acct-b", learn: false });
  expect(other.engine).toBe(Engine.ENGINE_LLM);
  expect(other.warnings.map((w) => w.code)).not.toContain("template");
  const internal = await extract(PAGES[2]!, "https://tenants.example/p/2", { tenant: "", learn: false });
  expect(internal.engine).toBe(Engine.ENGINE_LLM);
  expect(fake.requests.length).toBe(calls + 2);
  // The account that taught it is answered by the template; the other account's page taught nothing.
  expect((await extract(PAGES[2]!, "https://tenants.example/p/2", { ...GATEWAY, learn: false })).engine).toBe(
    Engine.ENGINE_TEMPLATE,
  );
  expect((await store.list("tenants.example")).map((t) => t.tenant)).toEqual(["acct-a"]);
});

it("never learns from HTML a caller supplied: without the learn flag, or without the renderer's signature", async () => {
  const supplied = { tenant: "acct-a", learn: false };
  for (const [i, page] of PAGES.slice(0, 2).entries()) {
    const url = `https://supplied.example/p/${i}`;
    await extract(page, url, supplied);
    await extract(page, url, { tenant: "acct-a", learn: true, pageSignature: new Uint8Array() });
    const forged = signPage("an-attackers-key-0123456789abcdefgh", url, html(page));
    await extract(page, url, { tenant: "acct-a", learn: true, pageSignature: forged });
  }
  // The same two pages as the gateway sends them, for another account: once they have taught it, the pages above
  // would have taught too, had they been allowed to (learning goes in the order pages came).
  for (const [i, page] of PAGES.slice(0, 2).entries()) {
    await extract(page, `https://supplied.example/p/${i}`, { tenant: "acct-control", learn: true });
    await learned("supplied.example", i + 1, "acct-control");
  }
  const later = await extract(PAGES[2]!, "https://supplied.example/p/2", supplied);
  expect(later.engine).toBe(Engine.ENGINE_LLM);
  expect((await store.list("supplied.example")).map((t) => t.tenant)).toEqual(["acct-control"]);
});

it("refuses a malformed tenant, and learning without one, as invalid-request (INVALID_ARGUMENT)", async () => {
  for (const [scope, message] of [
    [{ tenant: "acct a", learn: false }, /^tenant must be/],
    [{ tenant: "", learn: true }, /^learn needs a tenant/],
  ] as const) {
    const error = await extract(PAGES[0]!, "https://cameras.example/p/0", scope).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: "WinnowError",
      type: "invalid-request",
      message: expect.stringMatching(message),
    });
  }
});

it("shares templates across accounts when the operator says so", async () => {
  const shared = await startExtractor(true);
  try {
    for (const [i, page] of PAGES.slice(0, 2).entries()) {
      await extract(page, `https://cameras.example/p/${i}`, { tenant: "acct-a", learn: true }, shared.client);
      await learned("cameras.example", i + 1, SHARED_TENANT, shared.store);
    }
    for (const tenant of ["acct-b", ""]) {
      const answer = await extract(PAGES[2]!, "https://cameras.example/p/2", { tenant, learn: false }, shared.client);
      expect(answer.engine).toBe(Engine.ENGINE_TEMPLATE);
    }
  } finally {
    await shared.close();
  }
});

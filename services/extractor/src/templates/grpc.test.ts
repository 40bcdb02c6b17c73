import { createClient, createLogger, promiseClient, startGrpcServer } from "@winnow/platform";
import { Engine, ExtractorServiceClient } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { load } from "cheerio";
import { afterAll, expect, it, vi } from "vitest";
import { TEST_TOKENS } from "../../../../test/support/caller-tokens.js";
import { startFakeLlm } from "../../../../test/support/fake-llm.js";
import { LlmEngine } from "../engines/model/llm.js";
import { extractorServiceBinding } from "../extractor-service.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { TemplateLearner } from "./learner.js";
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
const store = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
const server = await startGrpcServer({
  host: "127.0.0.1",
  port: 0,
  logger,
  callers: { service: TEST_TOKENS.service },
  services: [
    extractorServiceBinding({
      logger,
      schemas: new SchemaCache(),
      llm: new LlmEngine(
        { baseUrl: fake.baseUrl, apiKey: undefined, model: "fake-model", maxRetries: 0, timeoutMs: 10_000 },
        logger,
      ),
      maxHtmlBytes: 64 * 1024,
      prompts: { pageTokens: 4_000, maxParts: 4, maxParallel: 2, grounding: "warn" },
      hybrid: "proven",
      templates: new TemplateLearner(store, logger),
    }),
  ],
});
server.setReady(true);
const client = createClient(ExtractorServiceClient, `127.0.0.1:${server.port}`, TEST_TOKENS.service);

afterAll(async () => {
  client.close();
  await server.shutdown(1_000);
  await fake.close();
});

async function extract(page: { model: string; price: string }, url: string) {
  const options = { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: true };
  return promiseClient(client).extract(
    { url, html: html(page), schemaJson: SCHEMA, taskDescription: "", options },
    { deadline: new Date(Date.now() + 10_000) },
  );
}

/** Learning settles after the answer; the next page waits until the store has counted this one. */
async function learned(host: string, pages: number) {
  await vi.waitFor(async () => expect((await store.list(host))[0]?.pages).toBe(pages), {
    timeout: 5_000,
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

  // The same layout on another host learned nothing: the model answers.
  const elsewhere = await extract(PAGES[2]!, "https://mirror.example/p/2");
  expect(elsewhere.engine).toBe(Engine.ENGINE_LLM);
  expect(fake.requests.length).toBe(calls + 1);
});

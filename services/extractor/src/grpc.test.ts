import * as grpc from "@grpc/grpc-js";
import { checkHealth, createLogger, promiseClient, WinnowError } from "@winnow/platform";
import {
  Engine,
  ExtractorServiceClient,
  type ExtractRequest,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callStatus, TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import { type FakeAnswer, type FakeLlm, reply, startFakeLlm } from "../../../test/support/fake-llm.js";
import { TEST_TIMEOUT_MS } from "../../../test/support/test-timeout.js";
import { LlmEngine } from "./engines/model/llm.js";
import { startTestExtractor } from "./extractor.test-helpers.js";

const logger = createLogger("extractor-test", "silent");

const HTML = `<html><head><title>Desk Lamp | Shop</title>
  <script type="application/ld+json">{"@type":"Product","name":"Desk Lamp","offers":{"price":"19.99","priceCurrency":"USD"}}</script>
</head><body><h1>Desk Lamp</h1><p>Only <a href="/deals">$19.99</a> today.</p></body></html>`;
const SCHEMA = JSON.stringify({ title: "string", price_usd: "number", colours: ["string"] });

function extractWith(
  client: ExtractorServiceClient,
  request: Partial<ExtractRequest>,
  deadlineMs = TEST_TIMEOUT_MS / 2,
) {
  return promiseClient(client).extract(
    {
      url: "https://shop.example/lamp",
      html: HTML,
      schemaJson: SCHEMA,
      taskDescription: "",
      options: undefined,
      tenant: "",
      learn: false,
      pageWarnings: [],
      wantNextPage: false,
      knownFields: [],
      pageSignature: new Uint8Array(),
      fieldHints: {},
      fieldRules: {},
      ...request,
    },
    { deadline: new Date(Date.now() + deadlineMs) },
  );
}

async function failure(promise: Promise<unknown>): Promise<WinnowError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WinnowError);
  return error as WinnowError;
}

let fake: FakeLlm;
let modelAnswer: () => FakeAnswer;
let withLlm: Awaited<ReturnType<typeof startTestExtractor>>;
let builtinOnly: Awaited<ReturnType<typeof startTestExtractor>>;

beforeAll(async () => {
  fake = await startFakeLlm(() => modelAnswer());
  withLlm = await startTestExtractor(
    new LlmEngine(
      { baseUrl: fake.baseUrl, apiKey: undefined, model: "fake-model", maxRetries: 0, timeoutMs: TEST_TIMEOUT_MS / 2 },
      logger,
    ),
  );
  builtinOnly = await startTestExtractor(undefined);
});

afterAll(async () => {
  for (const running of [withLlm, builtinOnly]) {
    await running?.close();
  }
  await fake?.close();
});

describe("ExtractorService over gRPC", () => {
  it("refuses a call without the service token, or with another role's, before the model is asked", async () => {
    const before = fake.requests.length;
    const address = `127.0.0.1:${withLlm.server.port}`;
    const request = {
      url: "https://shop.example/lamp",
      html: HTML,
      schemaJson: SCHEMA,
      taskDescription: "",
      options: { engine: Engine.ENGINE_LLM, includeModelInput: false, evidence: false },
      pageWarnings: [],
      wantNextPage: false,
      knownFields: [],
      pageSignature: new Uint8Array(),
      fieldHints: {},
      fieldRules: {},
    };
    for (const token of [undefined, TEST_TOKENS.gateway, TEST_TOKENS.admin, "x".repeat(40)]) {
      const status = await callStatus(ExtractorServiceClient, address, token, (client, done) =>
        client.extract(request, done),
      );
      expect(status.code, String(token)).toBe(grpc.status.UNAUTHENTICATED);
    }
    expect(fake.requests.length).toBe(before);
    // The same request with the service token reaches the model.
    modelAnswer = () => ({ title: "Desk Lamp", price_usd: 19.99, colours: [] });
    expect((await extractWith(withLlm.client, request)).engine).toBe(Engine.ENGINE_LLM);
    expect(fake.requests.length).toBeGreaterThan(before);
  });

  it("is SERVING as soon as it starts", async () => {
    expect(await checkHealth(`127.0.0.1:${builtinOnly.server.port}`, "winnow.extractor.v1.ExtractorService")).toBe(
      "SERVING",
    );
  });

  it("answers with the builtin engine when no LLM is configured", async () => {
    const response = await extractWith(builtinOnly.client, {});
    expect(response.engine).toBe(Engine.ENGINE_BUILTIN);
    expect(JSON.parse(response.dataJson)).toEqual({ title: "Desk Lamp", price_usd: 19.99, colours: null });
    expect(response.model).toBe("");
    expect(response.modelInputs).toEqual([]);
  });

  it("names the page's next listing page only when the caller follows it (want_next_page)", async () => {
    const html = `<html><body><h1>Lamps</h1><a rel="next" href="/lamps?page=2">Next</a></body></html>`;
    const plain = await extractWith(builtinOnly.client, { html });
    expect(plain.nextPageUrl).toBeUndefined();
    const listing = await extractWith(builtinOnly.client, { html, wantNextPage: true });
    expect(listing.nextPageUrl).toBe("https://shop.example/lamps?page=2");
  });

  it("shows what the model would be sent, with its token count, even when no LLM is configured", async () => {
    const response = await extractWith(builtinOnly.client, {
      options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: true },
    });
    expect(response.engine).toBe(Engine.ENGINE_BUILTIN);
    const [input] = response.modelInputs;
    expect(response.modelInputs).toHaveLength(1);
    expect(input?.messages[1]?.content).toContain("Only $19.99 today.");
    expect(JSON.parse(input?.responseFormatJson ?? "").type).toBe("json_schema");
    expect(input?.tokenCount).toBeGreaterThan(100);
  });

  it("gives evidence only when asked: where the model found each value, or that it did not", async () => {
    modelAnswer = () => ({ title: "Desk Lamp", price_usd: 19.99, colours: ["black"] });
    expect((await extractWith(withLlm.client, {})).evidence).toEqual([]);
    const response = await extractWith(withLlm.client, {
      options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: true },
    });
    expect(JSON.parse(response.dataJson)).toEqual({ title: "Desk Lamp", price_usd: 19.99, colours: ["black"] });
    const byPointer = Object.fromEntries(response.evidence.map(({ pointer, ...rest }) => [pointer, rest]));
    expect(Object.keys(byPointer).sort()).toEqual(["/colours/0", "/price_usd", "/title"]);
    // Free text and prices from structured data do not stand alone; the model confirmed them, and the evidence says
    // where they are.
    expect(byPointer["/title"]).toMatchObject({ source: "json-ld", text: "Desk Lamp", selector: "", grounded: true });
    expect(byPointer["/price_usd"]).toMatchObject({ source: "json-ld", text: "19.99", grounded: true });
    // Not on the page: the model's value is kept (grounding warns), and its evidence says so.
    expect(byPointer["/colours/0"]).toEqual({
      source: "model",
      text: "",
      selector: "",
      confidence: 0.3,
      grounded: false,
      status: "unverified",
    });
    // The model confirmed the structured data's values; the colour it gave is not on the page.
    expect(response.fieldStatus).toEqual([
      { pointer: "/title", status: "found" },
      { pointer: "/price_usd", status: "found" },
      { pointer: "/colours", status: "unverified" },
    ]);
  });

  it("refuses ENGINE_TEMPLATE as a request: it names where an answer came from", async () => {
    const error = await failure(
      extractWith(builtinOnly.client, {
        options: { engine: Engine.ENGINE_TEMPLATE, includeModelInput: false, evidence: false },
      }),
    );
    expect(error.type).toBe("invalid-request");
    expect(error.message).toMatch(/TEMPLATE names an answer's source/);
  });

  it("refuses ENGINE_LLM when no LLM is configured", async () => {
    const error = await failure(
      extractWith(builtinOnly.client, { options: { engine: Engine.ENGINE_LLM, includeModelInput: false } }),
    );
    expect(error.type).toBe("invalid-request");
    expect(error.message).toMatch(/no LLM is configured/);
  });

  it("refuses an invalid schema, naming the bad path", async () => {
    const error = await failure(
      extractWith(builtinOnly.client, { schemaJson: JSON.stringify({ items: [{ price: "money" }] }) }),
    );
    expect(error.type).toBe("invalid-schema");
    expect(error.violations).toEqual([expect.objectContaining({ path: "/schema/items/0/price" })]);
    expect((await failure(extractWith(builtinOnly.client, { schemaJson: "{" }))).type).toBe("invalid-schema");
  });

  it("refuses a page over the size limit and a URL that is not http(s)", async () => {
    expect((await failure(extractWith(builtinOnly.client, { html: "x".repeat(65 * 1024) }))).type).toBe(
      "page-too-large",
    );
    // The one rule set for page addresses (platform's target-url.ts): a scheme other than http(s) is url-not-allowed
    // everywhere.
    expect((await failure(extractWith(builtinOnly.client, { url: "ftp://x.example/" }))).type).toBe("url-not-allowed");
    expect((await failure(extractWith(builtinOnly.client, { url: "not a url" }))).type).toBe("invalid-request");
  });

  it("uses the LLM when one is configured, shaping its answer and reporting usage", async () => {
    modelAnswer = () => ({ title: "Desk Lamp", price_usd: "$19.99", colours: ["black", 7], invented: "x" });
    const response = await extractWith(withLlm.client, {
      taskDescription: "Use USD.",
      options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: true },
    });
    expect(response.engine).toBe(Engine.ENGINE_LLM);
    expect(response.model).toBe("fake-model");
    expect(JSON.parse(response.dataJson)).toEqual({ title: "Desk Lamp", price_usd: 19.99, colours: ["black", "7"] });
    // The answer broke the schema (a string price, a number in a list of strings, an extra key): one repair round,
    // then coerced into shape. The model's price, once coerced, is the builtin engine's reading of the page: the answer
    // stands on the builtin engine's evidence, without the model's warnings about it. The colours are not on the page:
    // grounding says so.
    expect(response.warnings.map((w) => `${w.code} ${w.path}`)).toEqual([
      "schema-mismatch ",
      "coerced /colours/1",
      "ungrounded /colours/0",
      "ungrounded /colours/1",
    ]);
    expect(response.usage?.totalTokens).toBeGreaterThan(0);

    // model_inputs shows the first call; the repair round came after it.
    const sent = fake.requests.at(-2);
    expect(response.modelInputs[0]?.messages).toEqual(sent?.messages);
    expect(JSON.parse(response.modelInputs[0]?.responseFormatJson ?? "")).toEqual(sent?.response_format);
    // No field wants a URL, so links are written as their text.
    expect(sent?.messages[1]?.content).toContain("Only $19.99 today.");
  });

  // A page whose review count (JSON-LD integer) and colour (a labelled text) come from sources proven on the corpus.
  const HYBRID_HTML = `<html><head><title>Desk Lamp | Shop</title>
    <script type="application/ld+json">{"@type":"Product","name":"Desk Lamp","offers":{"price":"19.99","priceCurrency":"USD"},"aggregateRating":{"ratingValue":4.5,"reviewCount":42}}</script>
    </head><body><h1>Desk Lamp</h1><table><tr><th>Colour</th><td>Black</td></tr></table><p>Only $19.99 today.</p></body></html>`;

  it("keeps the builtin engine's proven values and has the model read the page with its other values to confirm or correct", async () => {
    modelAnswer = () => ({ title: "Desk Lamp", price_usd: 19.99, colour: "Black", material: null });
    const schemaJson = JSON.stringify({
      title: "string",
      price_usd: "number",
      review_count: "integer",
      colour: "string",
      material: "string",
    });
    const response = await extractWith(withLlm.client, {
      html: HYBRID_HTML,
      schemaJson,
      options: { engine: Engine.ENGINE_UNSPECIFIED, includeModelInput: false, evidence: true },
    });
    expect(response.engine).toBe(Engine.ENGINE_LLM);
    expect(JSON.parse(response.dataJson)).toEqual({
      title: "Desk Lamp",
      price_usd: 19.99,
      review_count: 42,
      colour: "Black",
      material: null,
    });
    expect(response.warnings[0]).toMatchObject({
      code: "prefilled",
      message: expect.stringMatching(/^1 of 5 fields .*\(review_count\)/),
    });
    const request = fake.requests.at(-1)!;
    const asked = request.response_format?.json_schema?.schema as { properties: Record<string, unknown> };
    // The whole schema: together the fields say what the page is read for.
    expect(Object.keys(asked.properties)).toEqual(["title", "price_usd", "review_count", "colour", "material"]);
    expect(request.messages[1]?.content).toContain(
      // A labelled text holds on too few of the corpus's sites to stand without the model (prefill-calibration.ts).
      '<suggested_values>\n- title: "Desk Lamp" (read from json-ld)\n- price_usd: 19.99 (read from json-ld)\n- colour: "Black" (read from label)\n</suggested_values>',
    );
    // Each value's evidence comes from where the value came from.
    const sources = response.evidence.map((e) => `${e.pointer} ${e.source}`);
    expect(sources).toEqual(
      expect.arrayContaining(["/review_count json-ld", "/colour label", "/title json-ld", "/price_usd json-ld"]),
    );
    expect(new Set(response.evidence.map((e) => e.pointer)).size).toBe(response.evidence.length);
  });

  it("makes no model call when every field is answered from proven sources", async () => {
    const before = fake.requests.length;
    const response = await extractWith(withLlm.client, {
      html: HYBRID_HTML,
      schemaJson: JSON.stringify({ review_count: "integer" }),
    });
    expect(response.engine).toBe(Engine.ENGINE_BUILTIN);
    expect(JSON.parse(response.dataJson)).toEqual({ review_count: 42 });
    expect(response.warnings.map((w) => w.code)).toEqual(["prefilled"]);
    expect(fake.requests.length).toBe(before);
  });

  it("still answers with the builtin engine on request when an LLM is configured", async () => {
    const before = fake.requests.length;
    const response = await extractWith(withLlm.client, {
      options: { engine: Engine.ENGINE_BUILTIN, includeModelInput: true },
    });
    expect(response.engine).toBe(Engine.ENGINE_BUILTIN);
    expect(response.modelInputs).toHaveLength(1);
    expect(fake.requests.length).toBe(before);
  });

  it("reports a failed model call as an error, not as nulls", async () => {
    modelAnswer = () => reply.content("not json");
    expect((await failure(extractWith(withLlm.client, {}))).type).toBe("model-failure");
    modelAnswer = () => reply.status(503, 0);
    const unavailable = await failure(extractWith(withLlm.client, {}));
    expect(unavailable.type).toBe("model-unavailable");
    expect(unavailable.retryable).toBe(true);
  });

  it("ends the call at its deadline when the model hangs", async () => {
    modelAnswer = () => reply.hang();
    expect((await failure(extractWith(withLlm.client, {}, 300))).type).toBe("deadline-exceeded");
  });
});

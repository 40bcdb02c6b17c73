import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeLlm } from "../support/fake-llm.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { PAGES } from "./pages.js";

async function expectProblem(res: Response, status: number, type: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const problem = (await res.json()) as Record<string, unknown>;
  expect(problem).toMatchObject({ type: `https://winnow.dev/problems/${type}`, status });
  expect(problem.request_id).toBe(res.headers.get("x-request-id"));
  expect(typeof problem.title).toBe("string");
  expect(typeof problem.retryable).toBe("boolean");
  return problem;
}

describe("the stack on the builtin engine", () => {
  let run: RunningStack;
  beforeAll(async () => {
    // As a new user's `npm start` runs it: every database embedded.
    run = await launchStack(PAGES, {}, { store: "embedded" });
  });
  afterAll(async () => {
    await run?.stop();
  });

  it("prints a working dev key: a static page's JSON-LD comes back in the schema's shape", async () => {
    expect(run.stack.apiKey).toMatch(/^wnw_/);
    const res = await run.scrape({
      url: `${run.site.origin}/product`,
      schema: { product_name: "string", brand: "string", price_usd: "number", warranty_years: "integer" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      product_name: "Ridgeline Trail Shoe",
      brand: "Northpeak",
      price_usd: 129.99,
      warranty_years: null,
    });
    expect(res.headers.get("x-winnow-engine")).toBe("builtin");
    expect(res.headers.get("x-winnow-render-path")).toBe("static");
    expect(res.headers.get("server-timing")).toMatch(/auth;dur=.*render;dur=.*extract;dur=/);
    expect(res.headers.get("server-timing")).toMatch(
      /render-queue;dur=[\d.]+, render-navigation;dur=[\d.]+, render-settle;dur=[\d.]+/,
    );
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("renders a page whose content JavaScript writes", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/js-article`,
      schema: { headline: "string", author_name: "string", tags: ["string"] },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      headline: "Rivers Run Backwards in Spring",
      author_name: "Ada Brook",
      tags: null,
    });
    expect(res.headers.get("x-winnow-render-path")).toBe("browser");
  });

  it("renders in the browser when the request's options ask for it", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/product`,
      schema: { product_name: "string" },
      options: { render: "browser", timeout_ms: 15_000 },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ product_name: "Ridgeline Trail Shoe" });
    expect(res.headers.get("x-winnow-render-path")).toBe("browser");
  });

  it("answers 401 problem+json for a missing or wrong key", async () => {
    const body = { url: `${run.site.origin}/product`, schema: { name: "string" } };
    await expectProblem(await run.scrape(body, {}), 401, "unauthorized");
    const wrong = run.stack.apiKey.slice(0, -1) + (run.stack.apiKey.endsWith("A") ? "B" : "A");
    await expectProblem(await run.scrape(body, { "x-api-key": wrong }), 401, "unauthorized");
    await expectProblem(await run.scrape(body, { "x-api-key": "not a key at all" }), 401, "unauthorized");
  });

  it("names what is wrong in a bad request", async () => {
    const badSchema = await expectProblem(
      await run.scrape({ url: `${run.site.origin}/product`, schema: { offer: { price: "money" } } }),
      400,
      "invalid-schema",
    );
    expect(badSchema.errors).toEqual([expect.objectContaining({ path: "/schema/offer/price" })]);
    const missing = await expectProblem(
      await run.scrape({ schema: { a: "string" }, extra: 1 }),
      400,
      "invalid-request",
    );
    expect(missing.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/url" }), expect.objectContaining({ path: "/extra" })]),
    );
    await expectProblem(await run.scrape("{not json"), 400, "invalid-request");
    await expectProblem(
      await fetch(`${run.stack.gatewayUrl}/scrape`, {
        method: "POST",
        headers: { "x-api-key": run.stack.apiKey, "content-type": "text/plain" },
        body: "hi",
      }),
      415,
      "unsupported-media-type",
    );
  });

  it("reports target failures as problems, not as empty data", async () => {
    const gone = await expectProblem(
      await run.scrape({ url: `${run.site.origin}/gone`, schema: { a: "string" } }),
      502,
      "target-http-error",
    );
    expect(gone.target_status).toBe(404);
    // Loopback outside the allowlist: the egress guard refuses it.
    await expectProblem(
      await run.scrape({ url: "http://127.0.0.1:9/", schema: { a: "string" } }),
      422,
      "url-not-allowed",
    );
    await expectProblem(
      await run.scrape({ url: "file:///etc/passwd", schema: { a: "string" } }),
      422,
      "url-not-allowed",
    );
  });

  it("serves liveness and readiness", async () => {
    expect((await fetch(`${run.stack.gatewayUrl}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${run.stack.gatewayUrl}/readyz`)).json()).toEqual({ status: "ready" });
  });
});

describe("the stack on the LLM engine, traced", () => {
  let run: RunningStack;
  let llm: Awaited<ReturnType<typeof startFakeLlm>>;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    llm = await startFakeLlm(() => ({
      product_name: "Ridgeline Trail Shoe",
      price_usd: "129.99",
      invented_field: "dropped",
    }));
    otlp = await startOtlpReceiver();
    run = await launchStack(PAGES, {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: "test-key",
      LLM_MODEL: "winnow-test-model",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      // Metrics over OTLP too, instead of /metrics.
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      // Every field to the model (no builtin pre-fill), and info logs to check what they hold.
      EXTRACT_HYBRID: "off",
      LOG_LEVEL: "info",
    });
  });
  afterAll(async () => {
    await run?.stop();
    await llm?.close();
    await otlp?.close();
  });

  it("sends the page and the compiled schema to the model and shapes its answer", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/product`,
      schema: { product_name: "string", price_usd: "number" },
      task_description: "Prices in US dollars.",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 });
    expect(res.headers.get("x-winnow-engine")).toBe("llm");
    expect(Number(res.headers.get("x-winnow-tokens-in"))).toBeGreaterThan(0);

    // The scripted answer breaks the schema (a string price, an extra key): one repair round, then coerced.
    expect(llm.requests).toHaveLength(2);
    const sent = llm.requests[0] as {
      model: string;
      messages: { role: string; content: string }[];
      response_format: {
        type: string;
        json_schema: { strict: boolean; schema: { required: string[]; additionalProperties: boolean } };
      };
    };
    expect(sent.model).toBe("winnow-test-model");
    const text = sent.messages.map((m) => m.content).join("\n");
    expect(text).toContain("A light trail shoe with a rock plate.");
    expect(text).toContain("Prices in US dollars.");
    expect(sent.response_format.type).toBe("json_schema");
    expect(sent.response_format.json_schema.strict).toBe(true);
    expect(sent.response_format.json_schema.schema).toMatchObject({ additionalProperties: false });
    expect([...sent.response_format.json_schema.schema.required].sort()).toEqual(["price_usd", "product_name"]);
  });

  it("pushes metrics over OTLP when OTEL_METRICS_EXPORTER=otlp", async () => {
    expect((await run.scrape({ url: `${run.site.origin}/product`, schema: { product_name: "string" } })).status).toBe(
      200,
    );
    const expected = [
      { service: "winnow-gateway", name: "http.server.request.duration" },
      { service: "winnow-auth", name: "winnow.rpc.server.duration" },
      { service: "winnow-renderer", name: "winnow.renders" },
      { service: "winnow-extractor", name: "winnow.model.tokens" },
    ];
    const arrived = () =>
      expected.filter((metric) => otlp.metrics.some((m) => m.service === metric.service && m.name === metric.name));
    await waitFor(() => (arrived().length === expected.length ? true : undefined)).catch(() => undefined);
    expect(arrived()).toEqual(expected);
    // Not served for Prometheus as well.
    expect(await fetch(`http://127.0.0.1:${run.stack.metricsPorts.gateway}/metrics`).catch(() => "no server")).toBe(
      "no server",
    );
  });

  /** The spans of the newest scrape's trace, once every service it went through has exported its part. */
  const newestTrace = (services: number) =>
    waitFor(() => {
      const roots = otlp.spans.filter(
        (s) => s.service === "winnow-gateway" && !s.parentSpanId && s.name.startsWith("POST"),
      );
      const inTrace = otlp.spans.filter((s) => s.traceId === roots.at(-1)?.traceId);
      // Spans arrive in batches per process; wait until the extractor's server span (which ends last) is in.
      const complete =
        inTrace.some((s) => s.name.startsWith("chat ")) &&
        inTrace.some((s) => /ExtractorService\/Extract$/.test(s.name));
      return new Set(inTrace.map((s) => s.service)).size === services && complete ? inTrace : undefined;
    });

  it("records one trace across the four services, with render, extract and model-call spans, and no secrets or page data", async () => {
    // A key the gateway has not seen, so this scrape checks it with auth.
    const apiKey = await run.newAccountKey();
    const res = await run.scrape(
      { url: `${run.site.origin}/product`, schema: { product_name: "string" } },
      { "x-api-key": apiKey },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("server-timing")).not.toContain("cached");
    const spans = await newestTrace(4);
    expect([...new Set(spans.map((s) => s.service))].sort()).toEqual([
      "winnow-auth",
      "winnow-extractor",
      "winnow-gateway",
      "winnow-renderer",
    ]);
    expect(spans).toContainEqual(
      expect.objectContaining({ service: "winnow-auth", name: expect.stringMatching(/AuthService\/ValidateKey$/) }),
    );
    expect(spans).toContainEqual(
      expect.objectContaining({ service: "winnow-renderer", name: expect.stringMatching(/RendererService\/Render$/) }),
    );
    expect(spans).toContainEqual(
      expect.objectContaining({
        service: "winnow-extractor",
        name: expect.stringMatching(/ExtractorService\/Extract$/),
      }),
    );
    const chat = spans.find((s) => s.name.startsWith("chat "))!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.model": "winnow-test-model",
      "gen_ai.usage.input_tokens": expect.stringMatching(/^[1-9]/),
    });
    expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeDefined();

    // Nothing secret or private in any span or log line of the whole run.
    const secrets = [run.stack.apiKey, "test-key", "A light trail shoe with a rock plate", '"Ridgeline Trail Shoe"'];
    const exported = JSON.stringify(otlp.spans);
    for (const secret of secrets) {
      expect(exported, `spans hold ${secret}`).not.toContain(secret);
      expect(
        run.output.filter((line) => line.includes(secret)),
        `logs hold ${secret}`,
      ).toEqual([]);
    }
    // Logs carry the trace ids of the requests they belong to.
    const accessLog = run.output.find((line) => line.startsWith("gateway:") && line.includes('"POST /scrape 200"'));
    expect(accessLog).toMatch(/"trace_id":"[0-9a-f]{32}"/);
  });

  it("leaves auth out of a scrape's trace once the gateway checks the key from its cache", async () => {
    let res: Response;
    do res = await run.scrape({ url: `${run.site.origin}/product`, schema: { product_name: "string" } });
    while (!res.headers.get("server-timing")?.includes('desc="cached"'));
    const spans = await newestTrace(3);
    expect([...new Set(spans.map((s) => s.service))].sort()).toEqual([
      "winnow-extractor",
      "winnow-gateway",
      "winnow-renderer",
    ]);
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

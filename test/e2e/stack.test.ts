/**
 * The whole stack as separate processes, over real HTTP and gRPC, with real
 * Chromium: fixture pages on 127.0.0.1, once through the builtin engine and
 * once through the LLM engine pointed at our own OpenAI-compatible server.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type ServiceName, type Stack } from "../../scripts/src/stack.js";
import { startFakeLlm } from "../support/fake-llm.js";
import { startFixtureSite, type FixtureSite } from "../support/fixture-site.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";
import { freePorts } from "../support/ports.js";
import { PAGES } from "./pages.js";

interface RunningStack {
  stack: Stack;
  site: FixtureSite;
  output: string[];
  scrape(body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

async function launch(extraEnv: Record<string, string> = {}): Promise<RunningStack> {
  const site = await startFixtureSite(PAGES);
  const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-e2e-"));
  const [gateway, auth, renderer, extractor] = (await freePorts(4)) as [number, number, number, number];
  const output: string[] = [];
  // A clean environment: a developer's own LLM or OTEL settings must not change what is tested.
  const stack = await startStack({
    inheritEnv: false,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      WINNOW_DATA_DIR: dataDir,
      WINNOW_EGRESS_ALLOW: site.hostPort,
      LOG_LEVEL: "warn",
      ...extraEnv,
    },
    ports: { gateway, auth, renderer, extractor },
    onOutput: (service: ServiceName, line: string) => output.push(`${service}: ${line}`),
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${output.join("\n")}`);
  });
  return {
    stack,
    site,
    output,
    scrape: (body, headers = { "x-api-key": stack.apiKey }) =>
      fetch(`${stack.gatewayUrl}/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    async stop() {
      await stack.stop();
      await site.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

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
    run = await launch();
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
    expect(await res.json()).toEqual({ product_name: "Ridgeline Trail Shoe", brand: "Northpeak", price_usd: 129.99, warranty_years: null });
    expect(res.headers.get("x-winnow-engine")).toBe("builtin");
    expect(res.headers.get("x-winnow-render-path")).toBe("static");
    expect(res.headers.get("server-timing")).toMatch(/auth;dur=.*render;dur=.*extract;dur=/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("renders a page whose content JavaScript writes", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/js-article`,
      schema: { headline: "string", author_name: "string", tags: ["string"] },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ headline: "Rivers Run Backwards in Spring", author_name: "Ada Brook", tags: null });
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
    const missing = await expectProblem(await run.scrape({ schema: { a: "string" }, extra: 1 }), 400, "invalid-request");
    expect(missing.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: "/url" }), expect.objectContaining({ path: "/extra" })]));
    await expectProblem(await run.scrape("{not json"), 400, "invalid-request");
    await expectProblem(
      await fetch(`${run.stack.gatewayUrl}/scrape`, { method: "POST", headers: { "x-api-key": run.stack.apiKey, "content-type": "text/plain" }, body: "hi" }),
      415,
      "unsupported-media-type",
    );
  });

  it("reports target failures as problems, not as empty data", async () => {
    const gone = await expectProblem(await run.scrape({ url: `${run.site.origin}/gone`, schema: { a: "string" } }), 502, "target-http-error");
    expect(gone.target_status).toBe(404);
    // Loopback outside the allowlist: the egress guard refuses it.
    await expectProblem(await run.scrape({ url: "http://127.0.0.1:9/", schema: { a: "string" } }), 422, "url-not-allowed");
    await expectProblem(await run.scrape({ url: "file:///etc/passwd", schema: { a: "string" } }), 422, "url-not-allowed");
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
    llm = await startFakeLlm(() => ({ product_name: "Ridgeline Trail Shoe", price_usd: "129.99", invented_field: "dropped" }));
    otlp = await startOtlpReceiver();
    run = await launch({
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: "test-key",
      LLM_MODEL: "winnow-test-model",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
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

    expect(llm.requests).toHaveLength(1);
    const sent = llm.requests[0] as {
      model: string;
      messages: { role: string; content: string }[];
      response_format: { type: string; json_schema: { strict: boolean; schema: { required: string[]; additionalProperties: boolean } } };
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

  it("records one trace holding spans from all four services", async () => {
    const res = await run.scrape({ url: `${run.site.origin}/product`, schema: { product_name: "string" } });
    expect(res.status).toBe(200);
    const services = await waitFor(() => {
      const root = otlp.spans.find((s) => s.service === "winnow-gateway" && !s.parentSpanId && s.name.startsWith("POST"));
      if (!root) return undefined;
      const inTrace = new Set(otlp.spans.filter((s) => s.traceId === root.traceId).map((s) => s.service));
      return inTrace.size === 4 ? inTrace : undefined;
    });
    expect([...services].sort()).toEqual(["winnow-auth", "winnow-extractor", "winnow-gateway", "winnow-renderer"]);
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

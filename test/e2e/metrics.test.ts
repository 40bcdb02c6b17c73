/**
 * Each service's Prometheus endpoint after real traffic: a static and a
 * JavaScript page scraped through the model, a refused key, and a key over its
 * requests per minute move the counters a platform team watches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceName } from "../../scripts/src/stack.js";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { PAGES } from "./pages.js";

const REQUESTS_PER_MINUTE = 4;
let run: RunningStack;
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm(() => ({ headline: "Rivers Run Backwards in Spring" }));
  run = await launchStack(PAGES, {
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: "test-key",
    LLM_MODEL: "winnow-test-model",
    // Every field to the model, so the scrapes use tokens.
    EXTRACT_HYBRID: "off",
    PLAN_REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE),
  });
});
afterAll(async () => {
  await run?.stop();
  await llm?.close();
});

async function scrapeMetrics(service: ServiceName): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${run.stack.metricsPorts[service]}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string | number> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split("\n")
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : undefined;
}

describe("metrics after traffic", () => {
  beforeAll(async () => {
    const staticPage = await run.scrape({ url: `${run.site.origin}/product`, schema: { headline: "string" } });
    const scriptedPage = await run.scrape({ url: `${run.site.origin}/js-article`, schema: { headline: "string" } });
    expect([staticPage.headers.get("x-winnow-render-path"), scriptedPage.headers.get("x-winnow-render-path")]).toEqual([
      "static",
      "browser",
    ]);
    expect(
      (
        await run.scrape(
          { url: `${run.site.origin}/product`, schema: { headline: "string" } },
          { "x-api-key": "wnw_nope" },
        )
      ).status,
    ).toBe(401);
    // The two scrapes used two of the minute's requests; the rest of them, then one more.
    for (let used = 2; used < REQUESTS_PER_MINUTE; used++) {
      expect(
        (await fetch(`${run.stack.gatewayUrl}/account`, { headers: { "x-api-key": run.stack.apiKey } })).status,
      ).toBe(200);
    }
    expect(
      (await fetch(`${run.stack.gatewayUrl}/account`, { headers: { "x-api-key": run.stack.apiKey } })).status,
    ).toBe(429);
  });

  it("the gateway: requests by route and status (the HTTP instrumentation), problems by type, rate-limit rejections", async () => {
    const text = await scrapeMetrics("gateway");
    expect(
      sample(text, "http_server_request_duration_count", { http_route: "/scrape", http_response_status_code: 200 }),
    ).toBe(2);
    expect(
      sample(text, "http_server_request_duration_count", { http_route: "/scrape", http_response_status_code: 401 }),
    ).toBe(1);
    expect(
      sample(text, "http_server_request_duration_count", { http_route: "/account", http_response_status_code: 429 }),
    ).toBe(1);
    expect(sample(text, "winnow_problems_total", { winnow_problem_type: "unauthorized" })).toBe(1);
    expect(sample(text, "winnow_problems_total", { winnow_problem_type: "rate-limited" })).toBe(1);
    expect(sample(text, "winnow_rate_limit_rejections_total", { winnow_rate_limit: "requests_per_minute" })).toBe(1);
    expect(text).toContain('service_name="winnow-gateway"');
  });

  it("the renderer: renders by path, RPC durations, the browser pool", async () => {
    const text = await scrapeMetrics("renderer");
    expect(sample(text, "winnow_renders_total", { winnow_render_path: "static" })).toBe(1);
    expect(sample(text, "winnow_renders_total", { winnow_render_path: "browser" })).toBe(1);
    expect(
      sample(text, "winnow_rpc_server_duration_count", {
        rpc_method: "/winnow.renderer.v1.RendererService/Render",
        rpc_grpc_status_code: 0,
      }),
    ).toBe(2);
    expect(sample(text, "winnow_browser_pages_limit")).toBe(4);
    expect(sample(text, "winnow_browser_up")).toBe(1);
    expect(sample(text, "winnow_browser_pages_active")).toBe(0);
    expect(sample(text, "winnow_browser_queue_length")).toBe(0);
    // The egress proxy fetched the page for Chromium, but its traffic is the sites', neither traced nor counted.
    expect(text).not.toMatch(/^http_(server|client)_request_duration_count/m);
  });

  it("the extractor: extractions by engine, model tokens in and out", async () => {
    const text = await scrapeMetrics("extractor");
    expect(sample(text, "winnow_extractions_total", { winnow_engine: "llm" })).toBe(2);
    expect(sample(text, "winnow_model_tokens_total", { gen_ai_token_type: "input" })).toBeGreaterThan(0);
    expect(sample(text, "winnow_model_tokens_total", { gen_ai_token_type: "output" })).toBeGreaterThan(0);
  });

  it("auth: its RPCs by method", async () => {
    const text = await scrapeMetrics("auth");
    // At least once: the gateway may cache keys it has validated.
    expect(
      sample(text, "winnow_rpc_server_duration_count", {
        rpc_method: "/winnow.auth.v1.AuthService/ValidateKey",
        rpc_grpc_status_code: 0,
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("the jobs worker: each queue's depth, what it scales on", async () => {
    const text = await scrapeMetrics("jobs");
    // No job was submitted: both queues are empty, and say so.
    expect(sample(text, "winnow_jobs_queue_depth", { queue: "batch-pages" })).toBe(0);
    expect(sample(text, "winnow_jobs_queue_depth", { queue: "batch-webhooks" })).toBe(0);
    expect(text).toContain('service_name="winnow-jobs"');
  });
});

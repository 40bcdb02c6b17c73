/**
 * The Node.js client against the real stack (four processes, real Chromium),
 * with a scripted upstream in front of the gateway for retries and timeouts.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  RateLimitError,
  ServerError,
  TargetError,
  TimeoutError,
  Winnow,
} from "@winnow/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES } from "../../../test/e2e/pages.js";
import { freePorts } from "../../../test/support/ports.js";
import { startScriptedUpstream } from "../../../test/support/scripted-upstream.js";
import { launchStack, type RunningStack } from "../../../test/support/stack-under-test.js";

let run: RunningStack;
let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
let product: string;

beforeAll(async () => {
  run = await launchStack(PAGES);
  upstream = await startScriptedUpstream(run.stack.gatewayUrl);
  product = `${run.site.origin}/product`;
});
afterAll(async () => {
  await upstream?.close();
  await run?.stop();
});

/** A client of the scripted upstream, with fast retries. */
const client = (options: ConstructorParameters<typeof Winnow>[0] = {}) =>
  new Winnow({ apiKey: run.stack.apiKey, baseUrl: upstream.url, retryBaseDelayMs: 10, ...options });

async function failure(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: Error) => error,
  );
}

describe("Winnow client", () => {
  it("scrapes with the key sent for you, typed by the schema", async () => {
    const data = await client().scrape({
      url: product,
      schema: { product_name: "string", price_usd: "number", tags: ["string"] },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99, tags: null });
    const name: string | null = data.product_name;
    expect(name).toBe("Ridgeline Trail Shoe");
    expect(upstream.seen.at(-1)?.headers["x-api-key"]).toBe(run.stack.apiKey);
  });

  it("returns the data with its evidence when asked", async () => {
    const { data, evidence } = await client().scrape({
      url: product,
      schema: { product_name: "string", price_usd: "number" },
      options: { evidence: true },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 });
    expect(evidence["/product_name"]).toMatchObject({
      source: "json-ld",
      text: "Ridgeline Trail Shoe",
      grounded: true,
    });
    expect(evidence["/price_usd"]?.text).toContain("129.99");
  });

  it("returns each field's status and the warnings with the evidence: a task without a model answers needs-model", async () => {
    const { data, evidence, status, warnings } = await client().scrape({
      url: product,
      schema: { product_name: "string", colour: "string", summary: "string" },
      taskDescription: "Summarize it in one sentence.",
      options: { evidence: true },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", colour: null, summary: null });
    // Free text from JSON-LD is not a proven source on the corpus: nothing confirms it.
    expect(status).toEqual({ "/product_name": "unverified", "/colour": "absent", "/summary": "needs-model" });
    expect(evidence["/product_name"]?.status).toBe("unverified");
    expect(warnings).toEqual([{ code: "needs-model", path: "/summary", message: expect.stringContaining("model") }]);
  });

  it("reads the key from WINNOW_API_KEY", async () => {
    process.env.WINNOW_API_KEY = run.stack.apiKey;
    try {
      const data = await new Winnow({ baseUrl: run.stack.gatewayUrl }).scrape({
        url: product,
        schema: { brand: "string" },
      });
      expect(data).toEqual({ brand: "Northpeak" });
    } finally {
      delete process.env.WINNOW_API_KEY;
    }
    expect(() => new Winnow({ baseUrl: run.stack.gatewayUrl })).toThrow(/WINNOW_API_KEY/);
  });

  it("raises AuthenticationError for a wrong key, with the problem and request id", async () => {
    const error = await failure(
      client({ apiKey: "wnw_not_a_real_key" }).scrape({ url: product, schema: { a: "string" } }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: "unauthorized", retryable: false });
    expect((error as AuthenticationError).requestId).toMatch(/.+/);
  });

  it("raises InvalidRequestError with details for a bad schema or URL", async () => {
    const schema = await failure(client().scrape({ url: product, schema: { price: "money" } as never }));
    expect(schema).toBeInstanceOf(InvalidRequestError);
    expect((schema as InvalidRequestError).details).toEqual([expect.objectContaining({ path: "/schema/price" })]);
    const url = await failure(client().scrape({ url: "ftp://files.example/x", schema: { a: "string" } }));
    expect(url).toBeInstanceOf(InvalidRequestError);
    expect(url).toMatchObject({ status: 422, type: "url-not-allowed" });
  });

  it("raises TargetError with the site's status", async () => {
    const error = await failure(client().scrape({ url: `${run.site.origin}/gone`, schema: { a: "string" } }));
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).targetStatus).toBe(404);
  });

  it("retries after 429 and 503, honouring Retry-After, then succeeds", async () => {
    const before = upstream.seen.length;
    upstream.script.push({ status: 429, headers: { "retry-after": "0" } }, { status: 503 });
    const data = await client().scrape({ url: product, schema: { brand: "string" } });
    expect(data).toEqual({ brand: "Northpeak" });
    expect(upstream.seen.length - before).toBe(3);
  });

  it("retries after a dropped connection", async () => {
    upstream.script.push("destroy");
    expect(await client().scrape({ url: product, schema: { brand: "string" } })).toEqual({ brand: "Northpeak" });
  });

  it("gives up after maxRetries with the last error", async () => {
    upstream.script.push(
      {
        status: 429,
        headers: { "retry-after": "0" },
        body: JSON.stringify({
          type: "https://winnow.dev/problems/rate-limited",
          title: "Too many requests",
          status: 429,
        }),
      },
      { status: 429, headers: { "retry-after": "0" } },
    );
    const limited = await failure(client({ maxRetries: 1 }).scrape({ url: product, schema: { brand: "string" } }));
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(0);

    upstream.script.push({ status: 503 });
    const down = await failure(client({ maxRetries: 0 }).scrape({ url: product, schema: { brand: "string" } }));
    expect(down).toBeInstanceOf(ServerError);
    expect(down).toMatchObject({ status: 503, retryable: true });
  });

  it("does not retry what cannot succeed", async () => {
    const before = upstream.seen.length;
    await failure(client({ apiKey: "wnw_bad" }).scrape({ url: product, schema: { a: "string" } }));
    expect(upstream.seen.length - before).toBe(1);
    // A 503 that says it is not retryable: a renderer without a browser stays without one.
    const noBrowser = {
      type: "https://winnow.dev/problems/browser-unavailable",
      title: "No browser to render this page",
      status: 503,
      retryable: false,
    };
    upstream.script.push({ status: 503, body: JSON.stringify(noBrowser) });
    expect(await failure(client().scrape({ url: product, schema: { a: "string" } }))).toMatchObject({
      status: 503,
      type: "browser-unavailable",
      retryable: false,
    });
    expect(upstream.seen.length - before).toBe(2);
  });

  it("times out with TimeoutError, and stops on the caller's AbortSignal", async () => {
    upstream.script.push("hang");
    const timedOut = await failure(client({ timeoutMs: 300 }).scrape({ url: product, schema: { a: "string" } }));
    expect(timedOut).toBeInstanceOf(TimeoutError);

    upstream.script.push("hang");
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("caller gave up")), 100);
    const aborted = await failure(
      client().scrape({ url: product, schema: { a: "string" }, signal: controller.signal }),
    );
    expect(aborted.message).toBe("caller gave up");
  });

  it("raises ConnectionError when nothing listens", async () => {
    const [port] = await freePorts(1);
    const error = await failure(
      new Winnow({ apiKey: "k", baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1, retryBaseDelayMs: 1 }).scrape({
        url: product,
        schema: { a: "string" },
      }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it("ships a CommonJS build with the same API", () => {
    const required = createRequire(import.meta.url)("@winnow/client") as typeof import("@winnow/client");
    expect(typeof required.Winnow).toBe("function");
    expect(new required.Winnow({ apiKey: "k" }).baseUrl).toBe("http://127.0.0.1:8080");
  });

  it("infers result types from schema literals", async () => {
    // tsc on a file of type assertions: it fails to compile when inference is wrong.
    const project = path.resolve(import.meta.dirname, "types");
    await promisify(execFile)(process.execPath, [
      createRequire(import.meta.url).resolve("typescript/bin/tsc"),
      "-p",
      project,
    ]);
  });
});

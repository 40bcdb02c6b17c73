/**
 * The public contract against the running stack: every row of the error
 * table provoked for real, fuzzing with fast-check (never a 5xx, always a
 * problem body, no prototype pollution), and draining on SIGTERM.
 */
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { PROBLEM_TYPES, type ProblemSlug } from "@winnow/platform";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, reply, startFakeLlm } from "../support/fake-llm.js";
import type { FixturePage } from "../support/fixture-site.js";
import { startInProcessGateway } from "../support/in-process-gateway.js";
import { freePorts } from "../support/ports.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

/**
 * The renderer's limit, from the suite's one deadline setting: a loaded machine must still render "/bit-slow" within
 * it, and "/slow" stays well past it.
 */
const RENDER_TIMEOUT_MS = Math.round(TEST_TIMEOUT_MS / 6);

const PAGE = (text: string) =>
  `<!doctype html><html><head><title>${text}</title></head><body><h1>${text}</h1><p>${text}</p></body></html>`;
const PAGES: Record<string, FixturePage> = {
  "/ok": { body: PAGE("A page") },
  "/gone": { status: 404, body: PAGE("Gone") },
  "/pdf": { type: "application/pdf", body: "%PDF-1.4 not really" },
  "/huge": { body: PAGE("x".repeat(150_000)) },
  "/slow": { body: PAGE("Slow"), delayMs: 2 * RENDER_TIMEOUT_MS },
  "/bit-slow": { body: PAGE("A bit slow"), delayMs: 1_500 },
};

let run: RunningStack;
let llm: FakeLlm;
/** A port on the allowed host where nothing listens: the renderer may try it, and finds it closed. */
let closedPort: number;
/** Extra gateways in this process, on the stack's real backends, with other settings. */
const gateways: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  [closedPort] = (await freePorts(1)) as [number];
  llm = await startFakeLlm((body) => {
    const fields = Object.keys((body.response_format?.json_schema?.schema.properties as object) ?? {});
    if (fields.includes("model_failure")) return reply.content("this is not JSON");
    if (fields.includes("model_unavailable")) return reply.status(500, 0);
    return {};
  });
  run = await launchStack(
    PAGES,
    {
      LLM_BASE_URL: llm.baseUrl,
      LLM_MAX_RETRIES: "0",
      RENDER_MAX_HTML_BYTES: "100000",
      RENDER_TIMEOUT_MS: String(RENDER_TIMEOUT_MS),
      RENDER_MAX_PAGES: "1",
      RENDER_MAX_QUEUE: "1",
      MAX_BODY_BYTES: "65536",
    },
    { extraEgress: [`127.0.0.1:${closedPort}`] },
  );
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await run?.stop();
  await llm?.close();
});

/** A gateway in this process on the stack's backends (or on dead ones), e.g. with a short deadline. */
async function inProcessGateway(options: { requestTimeoutMs?: number; deadBackends?: boolean } = {}) {
  const gateway = await startInProcessGateway(run, {
    requestTimeoutMs: options.requestTimeoutMs ?? TEST_TIMEOUT_MS,
    deadBackends: options.deadBackends,
    keyPrefix: "contract:",
  });
  gateways.push(gateway);
  return gateway.url;
}

async function expectProblem(res: Response, slug: ProblemSlug): Promise<Record<string, unknown>> {
  const { status, retryable } = PROBLEM_TYPES[slug];
  const body = (await res.json()) as Record<string, unknown>;
  expect({ status: res.status, type: body.type }).toEqual({ status, type: `https://winnow.dev/problems/${slug}` });
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(body).toMatchObject({ status, retryable, request_id: res.headers.get("x-request-id") });
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  if (status === 429 || status === 503) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  return body;
}

const url = (path: string) => `${run.site.origin}${path}`;

describe("every row of the error table", () => {
  it("invalid-request: bad JSON, missing fields, unknown fields, a relative URL", async () => {
    await expectProblem(await run.scrape("{nope"), "invalid-request");
    const body = await expectProblem(await run.scrape({ schema: { a: "string" }, colour: "red" }), "invalid-request");
    expect(body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/url" }), expect.objectContaining({ path: "/colour" })]),
    );
    await expectProblem(await run.scrape({ url: "/relative", schema: { a: "string" } }), "invalid-request");
  });

  it("invalid-schema names the path", async () => {
    const body = await expectProblem(
      await run.scrape({ url: url("/ok"), schema: { offer: [{ price: "cash" }] } }),
      "invalid-schema",
    );
    expect(body.errors).toEqual([expect.objectContaining({ path: "/schema/offer/0/price" })]);
  });

  it("evidence-unavailable: a screenshot without the evidence envelope", async () => {
    const body = await expectProblem(
      await run.scrape({ url: url("/ok"), schema: { a: "string" }, options: { screenshot: true } }),
      "evidence-unavailable",
    );
    expect(body.errors).toEqual([{ path: "/options/screenshot", description: "needs options.evidence" }]);
  });

  it("unauthorized: missing and wrong keys", async () => {
    await expectProblem(await run.scrape({ url: url("/ok"), schema: { a: "string" } }, {}), "unauthorized");
    await expectProblem(
      await run.scrape({ url: url("/ok"), schema: { a: "string" } }, { "x-api-key": "wnw_nope" }),
      "unauthorized",
    );
  });

  it("not-found and method-not-allowed", async () => {
    await expectProblem(await fetch(`${run.stack.gatewayUrl}/nowhere`), "not-found");
    const res = await fetch(`${run.stack.gatewayUrl}/scrape`);
    expect(res.headers.get("allow")).toBe("POST");
    await expectProblem(res, "method-not-allowed");
  });

  it("payload-too-large and unsupported-media-type", async () => {
    await expectProblem(
      await run.scrape({ url: url("/ok"), schema: { a: "string" }, task_description: "x".repeat(70_000) }),
      "payload-too-large",
    );
    await expectProblem(
      await fetch(`${run.stack.gatewayUrl}/scrape`, {
        method: "POST",
        headers: { "x-api-key": run.stack.apiKey, "content-type": "text/plain" },
        body: "{}",
      }),
      "unsupported-media-type",
    );
    // A body whose Content-Encoding does not decode is the client's error, not the gateway's.
    // gzip cut short and followed by junk; junk that brotli's decoder refuses (a brotli body cut short fails as gzip's does).
    const gzipped = gzipSync(JSON.stringify({ url: url("/ok"), schema: { a: "string" } }));
    for (const [encoding, body] of [
      ["gzip", Buffer.concat([gzipped.subarray(0, 20), Buffer.alloc(40, 7)])],
      ["br", Buffer.alloc(40, 7)],
    ] as const) {
      const corrupt = await fetch(`${run.stack.gatewayUrl}/scrape`, {
        method: "POST",
        headers: { "x-api-key": run.stack.apiKey, "content-type": "application/json", "content-encoding": encoding },
        body,
      });
      expect((await expectProblem(corrupt, "invalid-request")).detail).toMatch(/Content-Encoding/);
    }
  });

  it("url-not-allowed: schemes, credentials, private and metadata addresses", async () => {
    for (const target of [
      "file:///etc/passwd",
      "https://user:pw@example.com/",
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]:8080/",
      "http://localhost/",
    ]) {
      await expectProblem(await run.scrape({ url: target, schema: { a: "string" } }), "url-not-allowed");
    }
    // A local address says how an operator allows it, for the first user pointing Winnow at a test site.
    const local = await expectProblem(
      await run.scrape({ url: "http://127.0.0.1:9/", schema: { a: "string" } }),
      "url-not-allowed",
    );
    expect(local.detail).toContain("WINNOW_EGRESS_ALLOW=127.0.0.1:9");
  });

  it("unsupported-json-schema names the keyword by its pointer", async () => {
    const body = await expectProblem(
      await run.scrape({
        url: url("/ok"),
        schema: { type: "object", properties: { a: { type: "string", pattern: "^x" } } },
      }),
      "unsupported-json-schema",
    );
    expect(body.errors).toEqual([expect.objectContaining({ path: "/schema/properties/a/pattern" })]);
  });

  it("target-unreachable, target-http-error, unsupported-content, page-too-large", async () => {
    await expectProblem(
      await run.scrape({ url: `http://127.0.0.1:${closedPort}/`, schema: { a: "string" } }),
      "target-unreachable",
    );
    expect(
      (await expectProblem(await run.scrape({ url: url("/gone"), schema: { a: "string" } }), "target-http-error"))
        .target_status,
    ).toBe(404);
    await expectProblem(await run.scrape({ url: url("/pdf"), schema: { a: "string" } }), "unsupported-content");
    await expectProblem(await run.scrape({ url: url("/huge"), schema: { a: "string" } }), "page-too-large");
  });

  it("model-failure and model-unavailable, never a null-filled 200", async () => {
    await expectProblem(await run.scrape({ url: url("/ok"), schema: { model_failure: "string" } }), "model-failure");
    await expectProblem(
      await run.scrape({ url: url("/ok"), schema: { model_unavailable: "string" } }),
      "model-unavailable",
    );
  });

  it("target-timeout: the page does not load within the renderer's limit", async () => {
    await expectProblem(await run.scrape({ url: url("/slow"), schema: { a: "string" } }), "target-timeout");
  });

  it("overloaded: one page at a time and a queue of one", async () => {
    // The browser path: the static path does not hold a page.
    const slow = { url: url("/bit-slow"), schema: { a: "string" }, options: { render: "browser" } };
    // The browser path's first page after start-up costs more than the page (its first context); this test is about
    // the queue, so the page is taken once before (its answer is not what is tested).
    await run.scrape(slow);
    const responses = await Promise.all([1, 2, 3].map(() => run.scrape(slow)));
    const overloaded = responses.filter((r) => r.status === 503);
    expect(overloaded.length).toBeGreaterThan(0);
    for (const res of overloaded) await expectProblem(res, "overloaded");
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThan(0);
  });

  it("deadline-exceeded: the gateway's own deadline passes first", async () => {
    const gateway = await inProcessGateway({ requestTimeoutMs: 1_000 });
    const res = await fetch(`${gateway}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
      body: JSON.stringify({ url: url("/slow"), schema: { a: "string" } }),
    });
    await expectProblem(res, "deadline-exceeded");
  });

  it("backend-unavailable: backends down is a 503, never a 401", async () => {
    const gateway = await inProcessGateway({ deadBackends: true });
    const res = await fetch(`${gateway}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": run.stack.apiKey },
      body: JSON.stringify({ url: url("/ok"), schema: { a: "string" } }),
    });
    await expectProblem(res, "backend-unavailable");
  });

  it("shutting-down: a draining gateway refuses new work and finishes what it started", async () => {
    const gateway = run.stack.process("gateway");
    const exited = new Promise<number | null>((resolve) => gateway.once("exit", (code) => resolve(code)));
    const inFlight = run.scrape({ url: url("/bit-slow"), schema: { a: "string" } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    gateway.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expectProblem(await run.scrape({ url: url("/ok"), schema: { a: "string" } }), "shutting-down");
    expect((await inFlight).status).toBe(200);
    expect(await exited).toBe(0);
    await run.stack.waitUntilReady();
  });
});

describe("fuzzing the running gateway", () => {
  const counts: Record<string, number> = {};
  afterAll(() => {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `fuzz: ${total} inputs tried (${Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})`,
    );
  });

  /** POSTs raw bytes with raw headers, as no well-behaved client would. */
  function post(
    base: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; type: string; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${base}/scrape`, { method: "POST", headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: text }),
        );
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Every answer to bad input: a 4xx problem document with the required members. */
  function expectClientProblem(res: { status: number; type: string; body: string }) {
    expect(res.status, res.body).toBeGreaterThanOrEqual(400);
    expect(res.status, res.body).toBeLessThan(500);
    expect(res.type).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(res.body) as Record<string, unknown>;
    for (const member of ["type", "title", "status", "detail", "request_id", "retryable"])
      expect(problem).toHaveProperty(member);
  }

  const key = () => ({ "content-type": "application/json", "x-api-key": run.stack.apiKey });
  // Hosts that are refused without a DNS query or a packet leaving this machine.
  const refusedHost = fc.constantFrom(
    "10.1.2.3",
    "127.0.0.1:1",
    "[::1]",
    "169.254.169.254",
    "0x7f.1",
    "2130706433",
    "[::ffff:127.0.0.1]",
    "a.localhost",
    "0",
    "[fd00::1]",
    "100.64.0.1",
  );
  const oddSchemaValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom("string", "number", "integer", "boolean", "array", "object", "date", "", "String"),
      fc.anything(),
      fc.array(tie("node"), { maxLength: 3 }),
      fc.dictionary(
        fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "prototype", "toString", "a\u0000b")),
        tie("node"),
        { maxKeys: 5 },
      ),
    ),
  })).node;

  it("malformed bodies", async () => {
    const base = run.stack.gatewayUrl;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.uint8Array().map((b) => Buffer.from(b).toString("latin1")),
        ),
        async (body) => {
          counts.bodies = (counts.bodies ?? 0) + 1;
          expectClientProblem(await post(base, body, key()));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("hostile schemas: deep, wide, prototype names, odd Unicode, huge strings", async () => {
    const base = run.stack.gatewayUrl;
    const deep = (n: number): unknown => (n === 0 ? "string" : { nested: deep(n - 1) });
    const fixed = [
      deep(50),
      deep(2000),
      Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`f${i}`, "string"])),
      JSON.parse('{"__proto__": {"polluted": "string"}}'),
      { constructor: { prototype: "string" } },
      { "\u202e\ud800": "string" },
      { ["x".repeat(60_000)]: "string" },
      { a: "x".repeat(60_000) },
      [{ a: "string" }],
    ];
    for (const schema of fixed) {
      counts.schemas = (counts.schemas ?? 0) + 1;
      const res = await post(base, JSON.stringify({ url: "http://10.0.0.1/", schema }), key());
      expectClientProblem(res);
    }
    await fc.assert(
      fc.asyncProperty(oddSchemaValue, async (schema) => {
        counts.schemas = (counts.schemas ?? 0) + 1;
        // A refused URL: valid schemas go as far as the egress guard, no page is fetched.
        const body = JSON.stringify({ url: "http://10.0.0.1/", schema });
        if (body === undefined) return;
        expectClientProblem(await post(base, body, key()));
      }),
      { numRuns: 200 },
    );
  });

  it("odd URLs", async () => {
    const base = run.stack.gatewayUrl;
    const oddUrl = fc.oneof(
      fc.string(),
      fc
        .tuple(
          fc.constantFrom(
            "http://",
            "https://",
            "HTTP://",
            "ftp://",
            "javascript:",
            "data:text/html,",
            "//",
            "http:/",
            "gopher://",
          ),
          refusedHost,
          fc.webPath(),
          fc.webQueryParameters(),
          fc.webFragments(),
        )
        .map(([scheme, host, path, query, fragment]) => `${scheme}${host}${path}?${query}#${fragment}`),
      fc
        .tuple(refusedHost, fc.string({ unit: "grapheme", maxLength: 20 }))
        .map(([host, tail]) => `http://${host}/${tail}`),
    );
    await fc.assert(
      fc.asyncProperty(oddUrl, async (target) => {
        counts.urls = (counts.urls ?? 0) + 1;
        expectClientProblem(await post(base, JSON.stringify({ url: target, schema: { a: "string" } }), key()));
      }),
      { numRuns: 200 },
    );
  });

  it("odd headers", async () => {
    const base = run.stack.gatewayUrl;
    // What Node's HTTP client lets through in a header value: visible ASCII, space, and latin-1 above DEL.
    const latin1 = fc.string({
      unit: fc.integer({ min: 0x20, max: 0xfe }).map((c) => String.fromCharCode(c === 0x7f ? 0xff : c)),
      maxLength: 300,
    });
    await fc.assert(
      fc.asyncProperty(latin1, latin1, latin1, async (apiKey, contentType, requestId) => {
        counts.headers = (counts.headers ?? 0) + 1;
        const res = await post(base, JSON.stringify({ url: "http://10.0.0.1/", schema: { a: "string" } }), {
          "x-api-key": apiKey || "k",
          "content-type": contentType,
          "x-request-id": requestId,
        });
        expectClientProblem(res);
      }),
      { numRuns: 150 },
    );
  });

  it("leaves Object.prototype alone in a gateway fed hostile input", async () => {
    const base = await inProcessGateway();
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    await fc.assert(
      fc.asyncProperty(oddSchemaValue, async (schema) => {
        counts.pollution = (counts.pollution ?? 0) + 1;
        await post(
          base,
          `{"url": "http://10.0.0.1/", "schema": ${JSON.stringify(schema) ?? "null"}, "__proto__": {"polluted": true}}`,
          key(),
        );
      }),
      { numRuns: 100 },
    );
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

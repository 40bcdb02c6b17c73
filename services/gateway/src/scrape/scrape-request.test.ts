import { WinnowError } from "@winnow/platform";
import { RenderMode } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { describe, expect, it } from "vitest";
import { parseScrapeRequest } from "./scrape-request.js";

function failure(body: unknown): WinnowError {
  try {
    parseScrapeRequest(body);
  } catch (error) {
    if (error instanceof WinnowError) return error;
    throw error;
  }
  throw new Error("expected a WinnowError");
}

describe("parseScrapeRequest", () => {
  it("reads options.pages and options.details, and refuses them where whole listings are not read (batch jobs)", () => {
    const body = {
      url: "https://shop.example/c",
      schema: { products: [{ name: "string", url: "string" }] },
      options: { pages: 3, details: true },
    };
    expect(parseScrapeRequest(body, { maxPages: 5 }).listing).toEqual({ pages: 3, details: true });
    expect(parseScrapeRequest({ url: body.url, schema: body.schema }).listing).toEqual({ pages: 1, details: false });
    expect(failure(body).violations).toEqual([
      { path: "/options/details", description: "whole listings are read by POST /scrape and POST /batch/scrape only" },
    ]);
  });

  it("accepts the spec's request and drops the URL fragment", () => {
    const request = parseScrapeRequest({
      url: " https://shop.example/item?id=1#reviews ",
      schema: { name: "string" },
      task_description: "Translate to French.",
    });
    expect(request).toMatchObject({
      url: "https://shop.example/item?id=1",
      taskDescription: "Translate to French.",
      schemaJson: '{"name":"string"}',
    });
  });

  it("passes render options through, and defaults them when absent", () => {
    const request = parseScrapeRequest({
      url: "https://shop.example/",
      schema: { a: "string" },
      options: { render: "browser", timeout_ms: 5000, wait_for: "#price" },
    });
    expect(request.renderOptions).toEqual({
      mode: RenderMode.RENDER_MODE_BROWSER,
      timeoutMs: 5000,
      waitFor: "#price",
      screenshot: false,
      outline: [],
    });
    expect(
      parseScrapeRequest({ url: "https://shop.example/", schema: { a: "string" }, options: { render: "static" } })
        .renderOptions,
    ).toEqual({
      mode: RenderMode.RENDER_MODE_STATIC,
      timeoutMs: 0,
      waitFor: "",
      screenshot: false,
      outline: [],
    });
    expect(parseScrapeRequest({ url: "https://shop.example/", schema: { a: "string" } }).renderOptions.mode).toBe(
      RenderMode.RENDER_MODE_UNSPECIFIED,
    );
  });

  it.each([
    [{ proxy: "x" }, "/options/proxy", "is not a known field"],
    [{ render: "fast" }, "/options/render", "must be equal to one of the allowed values"],
    [{ timeout_ms: 0 }, "/options/timeout_ms", "must be >= 1"],
    [{ timeout_ms: 1.5 }, "/options/timeout_ms", "must be integer"],
    [{ wait_for: "" }, "/options/wait_for", "must NOT have fewer than 1 characters"],
    [{ max_age: -1 }, "/options/max_age", "must be >= 0"],
    [{ max_age: 1.5 }, "/options/max_age", "must be integer"],
    [{ max_age: "1h" }, "/options/max_age", "must be integer"],
    [{ max_age: 31_536_001 }, "/options/max_age", "must be <= 31536000"],
    ["browser", "/options", "must be object"],
  ])("refuses options %j at %s", (options, path, description) => {
    expect(failure({ url: "https://shop.example/", schema: { a: "string" }, options }).violations).toEqual([
      { path, description },
    ]);
  });

  it("takes max_age in seconds, 0 included, and leaves it unset for the operator's default", () => {
    const request = (options?: object) =>
      parseScrapeRequest({ url: "https://shop.example/", schema: { a: "string" }, options });
    expect(request({ max_age: 600 }).maxAgeSeconds).toBe(600);
    expect(request({ max_age: 0 }).maxAgeSeconds).toBe(0);
    expect(request().maxAgeSeconds).toBeUndefined();
  });

  it("converts an internationalized host to punycode", () => {
    expect(parseScrapeRequest({ url: "https://bücher.example/", schema: { a: "string" } }).url).toBe(
      "https://xn--bcher-kva.example/",
    );
  });

  it("lists every envelope problem with its path", () => {
    expect(failure({ schema: "string", extra: true, task_description: 5 })).toMatchObject({
      type: "invalid-request",
      violations: expect.arrayContaining([
        { path: "/url", description: "is required" },
        { path: "/extra", description: "is not a known field" },
        { path: "/schema", description: "must be an object mapping field names to types" },
        { path: "/task_description", description: "must be string" },
      ]),
    });
    expect(failure(null).type).toBe("invalid-request");
    expect(failure([1, 2]).type).toBe("invalid-request");
  });

  it("reports schema errors as invalid-schema with paths", () => {
    expect(failure({ url: "https://a.example", schema: { items: [{ price: "cash" }] } })).toMatchObject({
      type: "invalid-schema",
      violations: [{ path: "/schema/items/0/price", description: expect.stringContaining("unknown type") }],
    });
  });

  it("reads options.formats: markdown in the evidence envelope only, the schema's answer always", () => {
    const sent = { url: "https://a.example", schema: { a: "string" } };
    expect(parseScrapeRequest({ ...sent, options: { formats: ["json", "markdown"], evidence: true } }).markdown).toBe(
      true,
    );
    expect(parseScrapeRequest(sent).markdown).toBe(false);
    expect(failure({ ...sent, options: { formats: ["json", "markdown"] } })).toMatchObject({
      type: "evidence-unavailable",
      violations: [{ path: "/options/formats" }],
    });
    expect(failure({ ...sent, options: { formats: ["markdown"], evidence: true } })).toMatchObject({
      type: "invalid-request",
      violations: [{ path: "/options/formats" }],
    });
    expect(failure({ ...sent, options: { formats: ["html"] } }).type).toBe("invalid-request");
  });

  it("refuses URLs that can never be fetched", () => {
    expect(failure({ url: "not a url", schema: { a: "string" } }).type).toBe("invalid-request");
    expect(failure({ url: "/relative/path", schema: { a: "string" } }).type).toBe("invalid-request");
    expect(failure({ url: "ftp://files.example/x", schema: { a: "string" } }).type).toBe("url-not-allowed");
    expect(failure({ url: "javascript:alert(1)", schema: { a: "string" } }).type).toBe("url-not-allowed");
    expect(failure({ url: "https://user:pw@site.example/", schema: { a: "string" } }).type).toBe("url-not-allowed");
  });
});

describe("parseScrapeRequest on hostile nesting", () => {
  it("refuses a schema thousands of levels deep without overflowing the stack", () => {
    let schema: unknown = "string";
    for (let i = 0; i < 5000; i++) schema = { nested: schema };
    expect(failure({ url: "https://a.example", schema })).toMatchObject({
      type: "invalid-schema",
      violations: [{ path: expect.stringMatching(/^\/schema(\/nested)+$/) }],
    });
    let list: unknown = [];
    for (let i = 0; i < 5000; i++) list = [list];
    expect(failure({ url: "https://a.example", schema: { a: "string" }, task_description: list }).type).toBe(
      "invalid-request",
    );
  });
});

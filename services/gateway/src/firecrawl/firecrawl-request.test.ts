import { WinnowError } from "@winnow/platform";
import { RenderMode } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { describe, expect, it } from "vitest";
import { parseFirecrawlScrape } from "./firecrawl-request.js";

const URL_SENT = "https://shop.example/shoe";
const SCHEMA = { type: "object", properties: { name: { type: "string", description: "the shoe's name" } } };

function refusal(body: unknown, version: "v1" | "v2" = "v2"): WinnowError {
  try {
    parseFirecrawlScrape(body, version);
  } catch (error) {
    if (error instanceof WinnowError) return error;
    throw error;
  }
  throw new Error("accepted");
}

describe("parseFirecrawlScrape", () => {
  it("reads v2's JSON format object through the JSON Schema translation, the prompt as the task", () => {
    const scrape = parseFirecrawlScrape(
      { url: URL_SENT, formats: [{ type: "json", schema: SCHEMA, prompt: "in English" }, "markdown"], origin: "sdk" },
      "v2",
    );
    expect(scrape.markdown).toBe(true);
    expect(JSON.parse(scrape.json!.schemaJson)).toEqual({ name: "string" });
    expect(scrape.json!.fieldHints).toEqual({ "/name": "the shoe's name" });
    expect(scrape.json!.taskDescription).toBe("in English");
  });

  it("reads v1's json format with jsonOptions beside it", () => {
    const scrape = parseFirecrawlScrape({ url: URL_SENT, formats: ["json"], jsonOptions: { schema: SCHEMA } }, "v1");
    expect(scrape.markdown).toBe(false);
    expect(JSON.parse(scrape.json!.schemaJson)).toEqual({ name: "string" });
  });

  it("asks for markdown when no format is named, as Firecrawl does", () => {
    const scrape = parseFirecrawlScrape({ url: URL_SENT }, "v2");
    expect(scrape).toMatchObject({ markdown: true, json: undefined, maxAgeSeconds: undefined });
  });

  it("maps timeout, waitFor and maxAge (milliseconds) onto the render bound, the browser and max_age (seconds)", () => {
    const scrape = parseFirecrawlScrape(
      {
        url: URL_SENT,
        formats: [{ type: "json", schema: SCHEMA }],
        timeout: 30_000,
        waitFor: 1000,
        maxAge: 172_800_500,
      },
      "v2",
    );
    expect(scrape.renderOptions).toMatchObject({ mode: RenderMode.RENDER_MODE_BROWSER, timeoutMs: 30_000 });
    expect(scrape.maxAgeSeconds).toBe(172_800);
    expect(scrape.json!.renderOptions).toEqual(scrape.renderOptions);
    expect(scrape.json!.maxAgeSeconds).toBe(172_800);
  });

  it("names every option and format Winnow does not support in one refusal", () => {
    const error = refusal({
      url: URL_SENT,
      formats: ["markdown", { type: "screenshot", fullPage: true }, "html"],
      actions: [{ type: "click", selector: "#more" }],
      location: { country: "DE" },
      onlyMainContent: false,
    });
    expect(error.type).toBe("invalid-request");
    expect(error.violations.map((v) => v.path)).toEqual([
      "/actions",
      "/location",
      "/formats/1",
      "/formats/2",
      "/onlyMainContent",
    ]);
    expect(error.message).toContain('format "screenshot" is not supported by Winnow');
  });

  it("refuses v2's JSON format named by string, saying how v2 names it", () => {
    expect(refusal({ url: URL_SENT, formats: ["json"] }).violations).toEqual([
      { path: "/formats/0", description: 'v2 names the JSON format by object: {"type": "json", "schema"}' },
    ]);
  });

  it("refuses a JSON format without a schema, and v1's object formats", () => {
    expect(refusal({ url: URL_SENT, formats: [{ type: "json", prompt: "the price" }] }).violations).toEqual([
      expect.objectContaining({ path: "/formats/0/schema" }),
    ]);
    expect(refusal({ url: URL_SENT, formats: [{ type: "json", schema: SCHEMA }] }, "v1").violations[0]?.path).toBe(
      "/formats/0",
    );
  });

  it("refuses bad values with their names, and a body that is no object", () => {
    expect(refusal({ url: URL_SENT, timeout: 500_000, maxAge: -1 }).violations.map((v) => v.path)).toEqual([
      "/timeout",
      "/maxAge",
    ]);
    expect(refusal({ formats: "markdown" }).violations.map((v) => v.path)).toEqual(["/url", "/formats"]);
    expect(refusal([1]).violations[0]?.path).toBe("/");
  });

  it("refuses a JSON Schema keyword the translation does not map, as POST /scrape does", () => {
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^R" } } };
    const error = refusal({ url: URL_SENT, formats: [{ type: "json", schema }] });
    expect(error.type).toBe("unsupported-json-schema");
    expect(error.violations.map((v) => v.path)).toEqual(["/formats/0/schema/properties/name/pattern"]);
  });
});

/**
 * Evidence through the whole stack: a page asked for `options.evidence`
 * answers each value with where it was read, and Chromium confirms that
 * every value's text is on the page and that its selector selects one
 * element holding that text. The builtin engine pre-fills what it can; the
 * model (our scripted server) answers the rest, grounded or not.
 */
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAUNCH_ARGS } from "../../services/renderer/src/browser.js";
import { startFakeLlm, type ChatRequestBody, type FakeLlm } from "../support/fake-llm.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { PAGES } from "./pages.js";

interface Evidence {
  source: string;
  text?: string;
  selector?: string;
  confidence: number;
  grounded: boolean;
}

const SCHEMA = {
  title: "string",
  description: "string",
  author: "string",
  published: "string",
  cuisine: "string",
  servings: "integer",
  ingredients: ["string"],
  reviews: [{ author: "string", rating: "number" }],
  serving_suggestion: "string",
};

/** What the scripted model answers for each field it is asked. */
const MODEL_VALUES: Record<string, unknown> = {
  serving_suggestion: "Serve with crusty bread and a green salad.",
  title: "Ridge Stew",
  summary: "A hearty beef stew.",
  difficulty: "Hard",
};

function modelAnswer(body: ChatRequestBody): Record<string, unknown> {
  const asked = Object.keys((body.response_format?.json_schema?.schema.properties ?? {}) as Record<string, unknown>);
  return Object.fromEntries(asked.map((field) => [field, MODEL_VALUES[field] ?? null]));
}

/** The non-null leaves and array items of an answer, by JSON pointer. */
function leaves(value: unknown, pointer = ""): string[] {
  if (value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item !== "object")) return value.map((_, index) => `${pointer}/${index}`);
  if (typeof value === "object") return Object.entries(value).flatMap(([key, inner]) => leaves(inner, `${pointer}/${key}`));
  return [pointer];
}

describe("evidence for every value", () => {
  let run: RunningStack;
  let llm: FakeLlm;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    llm = await startFakeLlm(modelAnswer);
    run = await launchStack(PAGES, { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "test-key", LLM_MODEL: "winnow-test-model" });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: LAUNCH_ARGS });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await run?.stop();
    await llm?.close();
  });

  it("gives every value the page text it was read from and a selector of the element that holds it, checked in Chromium", async () => {
    const url = `${run.site.origin}/recipe`;
    const res = await run.scrape({ url, schema: SCHEMA, options: { evidence: true } });
    expect(res.status).toBe(200);
    const { data, evidence } = (await res.json()) as { data: Record<string, unknown>; evidence: Record<string, Evidence> };
    expect(data).toEqual({
      title: "Ridge Stew",
      description: "A slow stew for cold days.",
      author: "Ada Brook",
      published: "2024-03-03",
      cuisine: "Alpine",
      servings: 4,
      ingredients: ["2 carrots", "1 onion", "500 g beef"],
      reviews: [
        { author: "Kim Lee", rating: 4 },
        { author: "Sam Ortiz", rating: 5 },
      ],
      serving_suggestion: "Serve with crusty bread and a green salad.",
    });
    // Every value has evidence, and nothing else does.
    expect(Object.keys(evidence).sort()).toEqual(leaves(data).sort());
    expect(evidence["/title"]?.source).toBe("json-ld");
    expect(evidence["/description"]?.source).toBe("meta");
    expect(evidence["/author"]?.source).toBe("byline");
    expect(evidence["/cuisine"]?.source).toBe("label");
    expect(evidence["/reviews/1/author"]?.source).toBe("layout");
    expect(evidence["/serving_suggestion"]).toEqual({ source: "model", text: "Serve with crusty bread and a green salad.", confidence: 0.8, grounded: true });

    await page.goto(url);
    const html = await page.content();
    const pageText = await page.evaluate(() => document.body.textContent!.replace(/\s+/g, " "));
    for (const [pointer, { text, selector, confidence, grounded }] of Object.entries(evidence)) {
      expect(text, pointer).toBeTruthy();
      expect(text!.length).toBeLessThanOrEqual(300);
      expect(grounded, pointer).toBe(true);
      expect(confidence).toBeGreaterThanOrEqual(0.6);
      expect(html.includes(text!) || pageText.includes(text!), `${pointer}: "${text}" is on the page`).toBe(true);
      if (!selector) continue;
      const selected = await page.evaluate(
        ([css, wanted]) => {
          const found = document.querySelectorAll(css);
          const element = found[0];
          const holds = element !== undefined && [element.textContent ?? "", ...[...element.attributes].map((a) => a.value)].some((t) => t.replace(/\s+/g, " ").includes(wanted));
          return { count: found.length, holds };
        },
        [selector, text!] as const,
      );
      expect(selected, `${pointer}: ${selector} selects one element holding "${text}"`).toEqual({ count: 1, holds: true });
    }
  });

  it("says grounded: false for a model value not on the page, and gives a derived value no text", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/recipe`,
      schema: { title: "string", summary: "string", difficulty: "string" },
      task_description: "Write a one-sentence summary.",
      options: { evidence: true },
    });
    expect(res.status).toBe(200);
    const { data, evidence } = (await res.json()) as { data: Record<string, unknown>; evidence: Record<string, Evidence> };
    expect(data).toEqual({ title: "Ridge Stew", summary: "A hearty beef stew.", difficulty: "Hard" });
    expect(evidence["/title"]).toMatchObject({ source: "model", text: expect.stringContaining("Ridge Stew"), grounded: true });
    expect(evidence["/summary"]).toEqual({ source: "model", confidence: 0.5, grounded: false });
    expect(evidence["/difficulty"]).toEqual({ source: "model", confidence: 0.3, grounded: false });
  });

  it("answers exactly the schema's shape without the option, and refuses a malformed one", async () => {
    const plain = await run.scrape({ url: `${run.site.origin}/recipe`, schema: { title: "string", cuisine: "string" } });
    expect(await plain.json()).toEqual({ title: "Ridge Stew", cuisine: "Alpine" });
    const bad = await run.scrape({ url: `${run.site.origin}/recipe`, schema: { title: "string" }, options: { evidence: "yes" } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: "https://winnow.dev/problems/invalid-request", errors: [{ path: "/options/evidence", description: "must be boolean" }] });
  });
});

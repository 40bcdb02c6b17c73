/**
 * Evidence through the whole stack: a page asked for `options.evidence`
 * answers each value with where it was read, and Chromium confirms that
 * every value's text is on the page and that its selector selects one
 * element holding that text. The builtin engine pre-fills what it can; the
 * model (our scripted server) answers the rest, grounded or not.
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { LAUNCH_ARGS } from "@winnow/renderer";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { FIELD_STATUSES } from "../../services/gateway/src/docs/openapi.js";
import { type ChatRequestBody, type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";
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
  // A model that stops after the first record of the list.
  lamps: [{ name: "Lamp model 1 with a long descriptive name", price_usd: 11.99 }],
};

const lamp = (i: number) =>
  `<div class="product"><h3><a href="/p/${i}">Lamp model ${i} with a long descriptive name</a></h3>` +
  `<p class="desc">Bright and warm light for a desk.</p><span class="price">$${10 + i}.99</span></div>`;

/** A list of four records: the page shows more of them than the scripted model returns. */
const LAMPS = `<!doctype html><html><head><title>Lamps</title></head><body><h1>Lamps</h1>
<div class="results">${[1, 2, 3, 4].map(lamp).join("")}</div></body></html>`;

/** The scripted model confirms the builtin engine's suggested values (they are on this page) and adds its own. */
function modelAnswer(body: ChatRequestBody): Record<string, unknown> {
  const asked = Object.keys((body.response_format?.json_schema?.schema.properties ?? {}) as Record<string, unknown>);
  const block = /<suggested_values>\n([\s\S]*?)\n<\/suggested_values>/.exec(body.messages[1]?.content ?? "")?.[1] ?? "";
  const suggested = new Map(
    [...block.matchAll(/^- (\w+): (.*) \(read from [^)]*\)$/gm)].map(([, field, value]) => [
      field!,
      JSON.parse(value!) as unknown,
    ]),
  );
  return Object.fromEntries(asked.map((field) => [field, MODEL_VALUES[field] ?? suggested.get(field) ?? null]));
}

const SCREENSHOTS = path.join(REPO_ROOT, "test-results", "playground");

/** The non-null leaves and array items of an answer, by JSON pointer. */
function leaves(value: unknown, pointer = ""): string[] {
  if (value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item !== "object"))
    return value.map((_, index) => `${pointer}/${index}`);
  if (typeof value === "object")
    return Object.entries(value).flatMap(([key, inner]) => leaves(inner, `${pointer}/${key}`));
  return [pointer];
}

describe("evidence for every value", () => {
  let run: RunningStack;
  let llm: FakeLlm;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    llm = await startFakeLlm(modelAnswer);
    run = await launchStack(
      { ...PAGES, "/lamps": { body: LAMPS } },
      {
        LLM_BASE_URL: llm.baseUrl,
        LLM_API_KEY: "test-key",
        LLM_MODEL: "winnow-test-model",
      },
    );
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
    const { data, evidence } = (await res.json()) as {
      data: Record<string, unknown>;
      evidence: Record<string, Evidence>;
    };
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
    expect(evidence["/serving_suggestion"]).toEqual({
      source: "model",
      text: "Serve with crusty bread and a green salad.",
      confidence: 0.8,
      grounded: true,
      status: "found",
    });

    await page.goto(url);
    const html = await page.content();
    const pageText = await page.evaluate(() => document.body.textContent!.replace(/\s+/g, " "));
    for (const [pointer, { text, selector, confidence, grounded }] of Object.entries(evidence)) {
      expect(text, pointer).toBeTruthy();
      expect(text!.length).toBeLessThanOrEqual(300);
      // Grounded where a reader sees the value: the meta description and the JSON-LD's ingredients are shown nowhere.
      expect(grounded, pointer).toBe(!/^\/(description|ingredients\/\d+)$/.test(pointer));
      // A value's confidence is its engine's score capped at how reliable its source is on other sites: a source
      // measured on few sites states little (docs/api.md, evidence).
      expect(confidence, pointer).toBeGreaterThan(0);
      expect(confidence, pointer).toBeLessThanOrEqual(1);
      expect(html.includes(text!) || pageText.includes(text!), `${pointer}: "${text}" is on the page`).toBe(true);
      if (!selector) continue;
      const selected = await page.evaluate(
        ([css, wanted]) => {
          const found = document.querySelectorAll(css);
          const element = found[0];
          const holds =
            element !== undefined &&
            [element.textContent ?? "", ...[...element.attributes].map((a) => a.value)].some((t) =>
              t.replace(/\s+/g, " ").includes(wanted),
            );
          return { count: found.length, holds };
        },
        [selector, text!] as const,
      );
      expect(selected, `${pointer}: ${selector} selects one element holding "${text}"`).toEqual({
        count: 1,
        holds: true,
      });
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
    const { data, evidence } = (await res.json()) as {
      data: Record<string, unknown>;
      evidence: Record<string, Evidence>;
    };
    expect(data).toEqual({ title: "Ridge Stew", summary: "A hearty beef stew.", difficulty: "Hard" });
    // The task asks for a summary only: the builtin engine's title (the heading the page shows) stands.
    expect(evidence["/title"]).toMatchObject({ source: "json-ld", grounded: true, status: "found" });
    expect(evidence["/summary"]).toEqual({ source: "model", confidence: 0.5, grounded: false, status: "derived" });
    expect(evidence["/difficulty"]).toEqual({
      source: "model",
      confidence: 0.3,
      grounded: false,
      status: "unverified",
    });
  });

  it("answers exactly the schema's shape without the option, and refuses a malformed one", async () => {
    const plain = await run.scrape({
      url: `${run.site.origin}/recipe`,
      schema: { title: "string", cuisine: "string" },
    });
    expect(await plain.json()).toEqual({ title: "Ridge Stew", cuisine: "Alpine" });
    // A screenshot comes in the envelope, from the browser even when the page was read statically.
    const shot = await run.scrape({
      url: `${run.site.origin}/recipe`,
      schema: { cuisine: "string" },
      options: { render: "static", evidence: true, screenshot: true },
    });
    expect(shot.status).toBe(200);
    expect(shot.headers.get("server-timing")).toMatch(/screenshot;dur=/);
    const shown = (await shot.json()) as { data: unknown; screenshot: string };
    expect(shown.data).toEqual({ cuisine: "Alpine" });
    expect(shown.screenshot).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    const bad = await run.scrape({
      url: `${run.site.origin}/recipe`,
      schema: { title: "string" },
      options: { evidence: "yes" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      type: "https://winnow.dev/problems/invalid-request",
      errors: [{ path: "/options/evidence", description: "must be boolean" }],
    });
  });

  /** A new account's playground, in a browser context of its own. */
  async function openPlayground(): Promise<{ context: BrowserContext; dashboard: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    const dashboard = await context.newPage();
    await dashboard.goto(`${run.stack.gatewayUrl}/dashboard/login`);
    await dashboard.getByRole("link", { name: "Sign up" }).click();
    await dashboard.getByLabel("Email").fill(`${randomUUID()}@example.com`);
    await dashboard.getByLabel(/^Password/).fill("a long enough password");
    await dashboard.getByRole("button", { name: "Sign up" }).click();
    await dashboard.waitForURL(`${run.stack.gatewayUrl}/dashboard`);
    await dashboard.getByRole("link", { name: "Playground", exact: true }).click();
    return { context, dashboard };
  }

  it("shows each value in the playground with its status and what it means, its source, text and confidence, and the page with those elements outlined, at desktop and phone width", async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const { context, dashboard } = await openPlayground();
    await dashboard.getByLabel("Page URL").fill(`${run.site.origin}/recipe`);
    await dashboard.getByLabel(/^Schema/).fill(
      JSON.stringify({
        title: "string",
        author: "string",
        cuisine: "string",
        ingredients: ["string"],
        reviews: [{ author: "string", rating: "number" }],
      }),
    );
    await dashboard.getByLabel(/Show the page/).check();
    await dashboard.getByRole("button", { name: "Scrape" }).click();
    await expect
      .poll(() => dashboard.locator("#result-status").textContent(), { timeout: TEST_TIMEOUT_MS })
      .toBe("200 OK");

    // One row per value: 3 fields, 3 ingredients, 2 reviews of 2 fields.
    const rows = dashboard.locator("#evidence tbody tr");
    expect(await rows.count()).toBe(10);
    const cuisine = rows.filter({ hasText: "/cuisine" });
    const status = (await cuisine.locator(".status").textContent())!;
    const meaning = FIELD_STATUSES.find((known) => known.status === status)?.summary;
    expect(await cuisine.locator("td").allTextContents()).toEqual([
      expect.stringContaining('"Alpine"'),
      `${status}${meaning}`,
      "label",
      expect.stringContaining("Alpine"),
      expect.stringMatching(/^\d+%$/),
    ]);
    expect(await cuisine.locator(".selector").textContent()).toBeTruthy();
    expect(await rows.filter({ hasText: "/ingredients/0" }).locator("td").nth(2).textContent()).toBe("json-ld");
    // The screenshot is the page as the browser loaded it, shown under the table.
    const image = dashboard.getByRole("img", { name: /elements values were read from outlined/ });
    expect(await image.getAttribute("src")).toMatch(/^data:image\/jpeg;base64,/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await dashboard.screenshot({ path: path.join(SCREENSHOTS, "playground-desktop.png"), fullPage: true });

    // Phone width: the table scrolls within its card rather than widening the page.
    await dashboard.setViewportSize({ width: 390, height: 844 });
    expect(await dashboard.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await dashboard.screenshot({ path: path.join(SCREENSHOTS, "playground-phone.png"), fullPage: true });
    await context.close();
  });

  it("shows a list's own status in the playground when none of its records has it (a model's shorter list)", async () => {
    const { context, dashboard } = await openPlayground();
    await dashboard.getByLabel("Page URL").fill(`${run.site.origin}/lamps`);
    await dashboard.getByLabel(/^Schema/).fill(JSON.stringify({ lamps: [{ name: "string", price_usd: "number" }] }));
    await dashboard.getByRole("button", { name: "Scrape" }).click();
    await expect
      .poll(() => dashboard.locator("#result-status").textContent(), { timeout: TEST_TIMEOUT_MS })
      .toBe("200 OK");
    const rows = dashboard.locator("#evidence tbody tr");
    // The model returned one record of the four the page shows: the builtin engine's four stand, each found, and the
    // list as a whole is a conflict (its evidence holds the model's shorter list).
    expect(await rows.locator("td:first-child code").allTextContents()).toEqual([
      "/lamps",
      ...[0, 1, 2, 3].flatMap((i) => [`/lamps/${i}/name`, `/lamps/${i}/price_usd`]),
    ]);
    expect(await rows.first().locator("td:first-child strong").textContent()).toBe("(the field as a whole)");
    expect(await rows.first().locator(".status").textContent()).toBe("conflict");
    expect(await rows.first().locator(".meaning").textContent()).toBe(
      FIELD_STATUSES.find(({ status }) => status === "conflict")?.summary,
    );
    await context.close();
  });
});

/**
 * Repeat scrapes from cache through the whole stack, with the cache in the
 * gateway's embedded database (the default) and in Redis: a scrape within
 * max_age loads no page (the fixture site counts its requests) and calls no
 * model (the scripted model counts its calls), and answers the same data with
 * its age; max_age 0 loads the page again and, unless the operator stores
 * every scrape (CACHE_STORE_ALWAYS), keeps nothing for later requests; another
 * account has its own cache unless the operator shares it. Every answer says what it cost and which path
 * answered it.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const jsonLd = JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Teapot",
  aggregateRating: { ratingValue: 4.5, reviewCount: 42 },
});
const PAGE = {
  body: `<!doctype html><html><head><title>Teapot | Shop</title><script type="application/ld+json">${jsonLd}</script></head>
<body><h1>Teapot</h1><p>A sturdy cast-iron teapot that keeps tea hot for an hour. Customers love it.</p></body></html>`,
};
/** A task description sends the page to the model (the builtin engine cannot write a summary). */
const MODEL_REQUEST = {
  schema: { name: "string", summary: "string" },
  task_description: "Summarize the product in one sentence.",
};
/** A value from a source proven across sites (JSON-LD's review count): the builtin engine answers, no model call. */
const BUILTIN_REQUEST = { schema: { review_count: "integer" } };

const CONFIGS = [
  { name: "embedded database", redis: false, shared: false, storeAlways: false },
  { name: "embedded database, storing every scrape", redis: false, shared: false, storeAlways: true },
  { name: "Redis", redis: true, shared: false, storeAlways: false },
  { name: "Redis, shared between accounts", redis: true, shared: true, storeAlways: false },
];

describe.each(CONFIGS)("scrape cache in the $name", ({ redis, shared, storeAlways }) => {
  let run: RunningStack;
  let llm: FakeLlm;
  let otherKey: string;
  const prefix = `winnow-test-${randomBytes(6).toString("hex")}:`;
  let path = 0;
  /** A page of its own per test, so each counts its own loads. */
  const newPage = () => {
    path += 1;
    pages[`/teapot/${path}`] = PAGE;
    return `/teapot/${path}`;
  };
  const pages: Record<string, typeof PAGE> = {};

  beforeAll(async () => {
    llm = await startFakeLlm(() => ({ name: "Teapot", summary: "A cast-iron teapot that keeps tea hot." }));
    run = await launchStack(
      pages,
      {
        LLM_BASE_URL: llm.baseUrl,
        LLM_API_KEY: "test-key",
        LLM_MODEL: "winnow-test-model",
        CACHE_SHARED: String(shared),
        CACHE_STORE_ALWAYS: String(storeAlways),
        ...(redis ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
      },
      { store: redis ? "postgres" : "embedded" },
    );
    otherKey = await run.newAccountKey();
  });

  afterAll(async () => {
    await run?.stop();
    await llm?.close();
    if (redis) {
      const client = new Redis(REDIS_URL);
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
      client.disconnect();
    }
  });

  async function scrape(pagePath: string, body: object, apiKey = run.stack.apiKey) {
    const response = await run.scrape({ url: `${run.site.origin}${pagePath}`, ...body }, { "x-api-key": apiKey });
    expect(response.status, await response.clone().text()).toBe(200);
    return {
      body: (await response.json()) as { data: unknown; cache: { page: string; data: string; age_seconds: number } },
      path: response.headers.get("x-winnow-path"),
      cache: response.headers.get("winnow-cache"),
      tokensIn: Number(response.headers.get("x-winnow-tokens-in")),
      tokensOut: Number(response.headers.get("x-winnow-tokens-out")),
    };
  }

  it("answers a repeat scrape within max_age from cache: no page load, no model call, the same data, its age", async () => {
    const page = newPage();
    const request = { ...MODEL_REQUEST, options: { max_age: 600, evidence: true } };
    const first = await scrape(page, request);
    expect(first.path).toBe("model");
    expect(first.tokensIn).toBeGreaterThan(0);
    expect(first.tokensOut).toBeGreaterThan(0);
    expect(first.cache).toBe("page=miss, data=miss, age=0");
    expect(run.site.requests(page)).toBe(1);
    const modelCalls = llm.requests.length;

    const second = await scrape(page, request);
    expect(run.site.requests(page)).toBe(1);
    expect(llm.requests.length).toBe(modelCalls);
    expect(second.path).toBe("cache");
    expect([second.tokensIn, second.tokensOut]).toEqual([0, 0]);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.cache).toMatchObject({ page: "hit", data: "hit" });
    expect(second.cache).toBe(`page=hit, data=hit, age=${second.body.cache.age_seconds}`);
    // Operators see it too: scrapes by answer path and page cache outcome.
    const metrics = await (await fetch(`http://127.0.0.1:${run.stack.metricsPorts.gateway}/metrics`)).text();
    expect(metrics).toMatch(/^winnow_scrapes_total\{[^}]*winnow_answer_path="cache"[^}]*\} [1-9]/m);
  });

  it("loads the page again with max_age 0", async () => {
    const page = newPage();
    await scrape(page, { ...MODEL_REQUEST, options: { max_age: 600 } });
    const again = await scrape(page, { ...MODEL_REQUEST, options: { max_age: 0 } });
    expect(run.site.requests(page)).toBe(2);
    expect(again.cache).toBe("page=miss, data=miss, age=0");
    expect(again.path).toBe("model");
  });

  it(
    storeAlways
      ? "keeps what a max_age 0 scrape rendered and extracted for a later request with max_age"
      : "keeps nothing from a max_age 0 scrape: a later request with max_age loads and extracts afresh",
    async () => {
      const page = newPage();
      await scrape(page, MODEL_REQUEST);
      const modelCalls = llm.requests.length;
      const later = await scrape(page, { ...MODEL_REQUEST, options: { max_age: 600 } });
      if (storeAlways) {
        expect(run.site.requests(page)).toBe(1);
        expect(llm.requests.length).toBe(modelCalls);
        expect(later.path).toBe("cache");
        expect(later.cache).toMatch(/^page=hit, data=hit, age=\d+$/);
      } else {
        expect(run.site.requests(page)).toBe(2);
        expect(llm.requests.length).toBe(modelCalls + 1);
        expect(later).toMatchObject({ path: "model", cache: "page=miss, data=miss, age=0" });
      }
    },
  );

  it(
    shared ? "answers another account from the shared cache" : "keeps one account's entries from another",
    async () => {
      const page = newPage();
      const request = { ...MODEL_REQUEST, options: { max_age: 600 } };
      await scrape(page, request);
      const modelCalls = llm.requests.length;
      const other = await scrape(page, request, otherKey);
      if (shared) {
        expect(run.site.requests(page)).toBe(1);
        expect(llm.requests.length).toBe(modelCalls);
        expect(other.path).toBe("cache");
      } else {
        expect(run.site.requests(page)).toBe(2);
        expect(llm.requests.length).toBe(modelCalls + 1);
        expect(other).toMatchObject({ path: "model", cache: "page=miss, data=miss, age=0" });
      }
    },
  );

  it("says a builtin answer cost no tokens", async () => {
    const modelCalls = llm.requests.length;
    const answer = await scrape(newPage(), BUILTIN_REQUEST);
    expect(answer).toMatchObject({ path: "builtin", tokensIn: 0, tokensOut: 0, cache: "page=miss, data=miss, age=0" });
    expect(answer.body).toEqual({ review_count: 42 });
    expect(llm.requests.length).toBe(modelCalls);
  });
});

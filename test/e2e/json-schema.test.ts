/**
 * A JSON Schema sent as `schema` (the habit of OpenAI and Firecrawl users),
 * through the whole stack: answered exactly like its schema-language twin,
 * or refused with 422 naming the keyword that does not map; its fields'
 * descriptions reach the model; its references are followed, and both
 * engines answer within its enums and formats.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const RECIPE = `<!doctype html><html><head><title>Ridge Stew | Recipes</title>
<script type="application/ld+json">${JSON.stringify({
  "@context": "https://schema.org",
  "@type": "Recipe",
  name: "Ridge Stew",
  recipeIngredient: ["2 carrots", "500 g beef", "1 onion"],
  author: { "@type": "Person", name: "Ada Ridge" },
  datePublished: "2024-05-25T08:00:00+02:00",
})}</script>
</head><body><h1>Ridge Stew</h1><p>By Ada Ridge</p>
<table class="facts"><tr><th>Cuisine</th><td>Alpine</td></tr><tr><th>Servings</th><td>4</td></tr></table>
<ul><li>2 carrots</li><li>500 g beef</li><li>1 onion</li></ul>
<p>Published May 25, 2024</p></body></html>`;

const LANGUAGE = {
  title: "string",
  cuisine: "string",
  servings: "integer",
  author: { name: "string" },
  ingredients: ["string"],
  calories_kcal: "number",
};

const JSON_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["title"],
  additionalProperties: false,
  properties: {
    title: { type: "string", description: "the recipe's name" },
    cuisine: { type: ["string", "null"] },
    servings: { type: "integer", nullable: true },
    author: { type: "object", properties: { name: { type: "string" } } },
    ingredients: { type: "array", items: { type: "string" } },
    calories_kcal: { anyOf: [{ type: "number" }, { type: "null" }] },
  },
};

/** A JSON Schema with a reference, enums (the page's servings are not among the allowed) and a date format. */
const RULED = {
  type: "object",
  properties: {
    cuisine: { type: "string", enum: ["alpine", "nordic"] },
    servings: { type: "integer", enum: [2, 6] },
    author: { $ref: "#/$defs/Person" },
    published: { type: "string", format: "date" },
  },
  $defs: { Person: { type: "object", properties: { name: { type: "string" } } } },
};

let run: RunningStack;

async function answer(schema: unknown) {
  const res = await run.scrape({ url: `${run.site.origin}/stew`, schema, options: { evidence: true } });
  return {
    status: res.status,
    engine: res.headers.get("x-winnow-engine"),
    fieldStatus: res.headers.get("winnow-field-status"),
    body: await res.json(),
  };
}

describe("a JSON Schema as `schema`", () => {
  beforeAll(async () => {
    // No learned templates: the second request must be answered the way the first was, not from what it taught.
    run = await launchStack({ "/stew": { body: RECIPE } }, { EXTRACT_TEMPLATES: "false" });
  });
  afterAll(async () => {
    await run?.stop();
  });

  it("answers exactly like its schema-language twin", async () => {
    const twin = await answer(LANGUAGE);
    const sent = await answer(JSON_SCHEMA);
    expect(twin.status).toBe(200);
    expect(twin.body.data.title).toBe("Ridge Stew");
    expect(twin.body.data.calories_kcal).toBeNull();
    expect(sent).toEqual(twin);
  });

  it("is refused with 422 naming the keyword that does not map, by its JSON pointer", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/stew`,
      schema: { type: "object", properties: { author: { type: "string", pattern: "^A" } } },
    });
    expect(res.status).toBe(422);
    const problem = await res.json();
    expect(problem).toMatchObject({
      type: "https://winnow.dev/problems/unsupported-json-schema",
      errors: [{ path: "/schema/properties/author/pattern", description: expect.stringContaining('"pattern"') }],
    });
    expect(problem.detail).toContain("/schema/properties/author/pattern");
  });

  it("follows $ref to $defs, and answers within enum and format on the builtin engine", async () => {
    const { status, fieldStatus, body } = await answer(RULED);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      // "Alpine" on the page, the enum's spelling in the answer; "4" is not a servings count the enum allows.
      cuisine: "alpine",
      servings: null,
      author: { name: "Ada Ridge" },
      published: "2024-05-25",
    });
    expect(body.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: "dropped-value", path: "/servings" })]),
    );
    expect(fieldStatus).toContain('"/servings";status=not-found');
  });

  it("refuses a remote $ref and a cycle of references with 422", async () => {
    const remote = await run.scrape({
      url: `${run.site.origin}/stew`,
      schema: { type: "object", properties: { author: { $ref: "https://schemas.example/person.json" } } },
    });
    expect(remote.status).toBe(422);
    expect((await remote.json()).errors[0].path).toBe("/schema/properties/author/$ref");
    const cycle = await run.scrape({
      url: `${run.site.origin}/stew`,
      schema: {
        type: "object",
        properties: { author: { $ref: "#/$defs/Person" } },
        $defs: { Person: { type: "object", properties: { friend: { $ref: "#/$defs/Person" } } } },
      },
    });
    expect(cycle.status).toBe(422);
    expect((await cycle.json()).errors[0].path).toBe("/schema/$defs/Person/properties/friend/$ref");
  });
});

describe("a JSON Schema's enum and format on the model engine", () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm(() => ({
      cuisine: "ALPINE",
      servings: 4,
      author: { name: "Ada Ridge" },
      published: "May 25, 2024",
    }));
    run = await launchStack(
      { "/stew": { body: RECIPE } },
      { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "test-key", EXTRACT_TEMPLATES: "false", EXTRACT_HYBRID: "off" },
    );
  });
  afterAll(async () => {
    await run?.stop();
    await llm?.close();
  });

  it("asks the model within the enum and holds its answer to the enum and the format", async () => {
    const { status, body } = await answer(RULED);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ cuisine: "alpine", servings: null, published: "2024-05-25" });
    const asked = llm.requests[0]?.response_format?.json_schema?.schema.properties as Record<string, any>;
    expect(asked.cuisine.enum).toEqual(["alpine", "nordic", null]);
    expect(asked.servings.enum).toEqual([2, 6, null]);
    expect(asked.author.anyOf[0].properties.name.type).toEqual(["string", "null"]);
  });
});

describe("a JSON Schema's descriptions", () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm(() => ({ serving_suggestion: "With crusty bread." }));
    run = await launchStack(
      { "/stew": { body: RECIPE } },
      { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: "test-key", EXTRACT_TEMPLATES: "false" },
    );
  });
  afterAll(async () => {
    await run?.stop();
    await llm?.close();
  });

  it("reach the model as the fields' descriptions", async () => {
    const hint = "how the page suggests serving the dish, in one sentence";
    const res = await run.scrape({
      url: `${run.site.origin}/stew`,
      schema: {
        type: "object",
        properties: { title: { type: "string" }, serving_suggestion: { type: "string", description: hint } },
      },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).serving_suggestion).toBe("With crusty bread.");
    const asked = llm.requests.map((body) => {
      const properties = (body.response_format?.json_schema?.schema.properties ?? {}) as Record<
        string,
        { description?: string }
      >;
      return properties.serving_suggestion?.description;
    });
    expect(asked).toContain(hint);
  });
});

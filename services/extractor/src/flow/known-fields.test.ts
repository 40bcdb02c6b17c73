/**
 * A record's own page read for what its listing left (ExtractRequest.known_fields): once the page's layout is learned,
 * the fields the caller holds cost no model call, while the template still reads the ones it can, for the caller to
 * check; pages the template does not answer still ask the model for everything.
 */
import { createLogger } from "@winnow/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../../../../test/support/fake-llm.js";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import { LlmEngine } from "../engines/model/llm.js";
import { loadPage } from "../page/page.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { TemplateLearner } from "../templates/learner.js";
import { MemoryTemplateStore } from "../templates/store.js";
import { type FlowSettings, runExtraction } from "./extract.js";

const logger = createLogger("test", "silent");
const SCHEMA = { title: "string", company: "string", description: "string", rating: "integer" };

const JOBS = [
  ["Energy engineer", "Vasquez-Davidson", "Party prevent live. Quickly candidate change although."],
  ["Legal executive", "Jackson, Chambers and Levy", "Administration even relate head color."],
  ["Product manager", "Ramirez Inc", "Traditional page a although for study anyone."],
  ["Fitness centre manager", "Savage-Bradley", "Tv program actually race tonight themselves."],
] as const;

/** A job's own page: its title, company and description; no rating (only the listing shows one). */
function jobPage([title, company, description]: (typeof JOBS)[number]): string {
  return `<html><body><div id="header"><a href="/">Jobs</a></div>
    <div class="card"><h1 class="title">${title}</h1><h2 class="company">${company}</h2>
    <div class="content"><p>${description}</p></div></div><div id="footer">© Jobs</div></body></html>`;
}

describe("known fields on a record's own page", () => {
  let model: FakeLlm;
  beforeAll(async () => {
    // The model reads each page's title, company and description, and a rating the page does not show (ungrounded).
    model = await startFakeLlm((body) => {
      const text = body.messages.map((m) => m.content ?? "").join("\n");
      const job = JOBS.find(([title]) => text.includes(title))!;
      return { title: job[0], company: job[1], description: job[2], rating: 4 };
    });
  });
  afterAll(() => model.close());

  async function readPages(knownFields: string[]) {
    const settings: FlowSettings = {
      schemas: new SchemaCache(),
      prompts: { pageTokens: 4_000, maxParts: 4, maxParallel: 2, grounding: "warn" },
      hybrid: "proven",
      templates: new TemplateLearner(new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 }), logger),
      logger,
    };
    const llm = new LlmEngine(
      { baseUrl: model.baseUrl, apiKey: undefined, model: "scripted", maxRetries: 0, timeoutMs: TEST_TIMEOUT_MS },
      logger,
    );
    const schemaJson = JSON.stringify(SCHEMA);
    const answers = [];
    for (const [i, job] of JOBS.entries()) {
      const before = model.requests.length;
      const extraction = await runExtraction(
        {
          schemaJson,
          fieldHints: {},
          fieldRules: {},
          schema: settings.schemas.get(schemaJson),
          page: loadPage(jobPage(job), `https://jobs.example/jobs/${i}.html`),
          taskDescription: "",
          includeModelInput: false,
          evidence: true,
          llm,
          bounds: { signal: new AbortController().signal, deadline: new Date(Date.now() + TEST_TIMEOUT_MS) },
          templateScope: { tenant: "acct-a", learn: true },
          pageWarnings: [],
          wantNextPage: false,
          knownFields,
        },
        settings,
      );
      await extraction.learning;
      const { response } = extraction;
      answers.push({
        modelCalls: model.requests.length - before,
        data: JSON.parse(response.dataJson) as Record<string, unknown>,
        status: Object.fromEntries(response.fieldStatus.map((s) => [s.pointer, s.status])),
      });
    }
    return answers;
  }

  it("cost no model call once the template answers the rest, and say so where it does not read them", async () => {
    const [first, second, third, fourth] = await readPages(["title", "company", "rating"]);
    // The layout's first two pages: the model reads every field, the listing's too (what the template learns).
    expect(first!.modelCalls).toBeGreaterThan(0);
    expect(second!.modelCalls).toBeGreaterThan(0);
    for (const page of [third!, fourth!]) {
      expect(page.modelCalls).toBe(0);
      // The template reads the known title and company (the caller checks them) and the description the caller lacks.
      expect(page.data).toMatchObject({ title: expect.any(String), company: expect.any(String) });
      expect(page.data.description).toEqual(expect.stringContaining(" "));
      expect(page.data.rating).toBeNull();
      expect(page.status["/rating"]).toBe("needs-model");
    }
    expect(fourth!.data).toMatchObject({ title: JOBS[3][0], company: JOBS[3][1], description: JOBS[3][2] });
  });

  it("leave every page to the model when none are known and the template cannot answer one", async () => {
    const pages = await readPages([]);
    // The rating the model reads is on no page: the template never answers it, so each page asks the model.
    expect(pages.map((page) => page.modelCalls > 0)).toEqual([true, true, true, true]);
  });
});

/**
 * A record's own page read for what its listing left (ExtractRequest.known_fields): once the page's layout is learned,
 * the fields the caller holds cost no model call, while the template still reads the ones it can, for the caller to
 * check; pages the template does not answer still ask the model for everything.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../../../../test/support/fake-llm.js";
import { readLayout } from "./extraction.test-helpers.js";

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
    const pages = JOBS.map((job, i) => ({ html: jobPage(job), url: `https://jobs.example/jobs/${i}.html` }));
    return (await readLayout(model, SCHEMA, pages, knownFields)).map(({ modelCalls, response }) => ({
      modelCalls,
      data: JSON.parse(response.dataJson) as Record<string, unknown>,
      status: Object.fromEntries(response.fieldStatus.map((s) => [s.pointer, s.status])),
    }));
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

import { describe, expect, it } from "vitest";
import type { ChatRequestBody, FakeAnswer } from "../../../../test/support/fake-llm.js";
import { extract as run } from "./extraction.test-helpers.js";

/** Hybrid extraction as configured by default (proven pre-fill), with a scripted model; none: the builtin engine. */
const extract = (html: string, schema: object, model?: (body: ChatRequestBody) => FakeAnswer) =>
  run(html, schema, { model, hybrid: "proven" });

/** Every field null, as a model that did not see them answers. */
const nothing = (body: ChatRequestBody) =>
  Object.fromEntries(
    Object.keys(body.response_format?.json_schema?.schema.properties as Record<string, unknown>).map((name) => [
      name,
      null,
    ]),
  );

const RECIPE = `<html><head><title>Ridge Stew | Kitchen</title>
  <script type="application/ld+json">${JSON.stringify({
    "@context": "https://schema.org",
    "@type": "Recipe",
    name: "Ridge Stew",
    recipeIngredient: ["2 carrots", "1 onion", "500 g beef"],
    recipeInstructions: [
      { "@type": "HowToStep", text: "Brown the beef." },
      { "@type": "HowToStep", text: "Add the vegetables and simmer." },
    ],
  })}</script></head><body>
  <h1>Ridge Stew</h1>
  <h2>Ingredients</h2><ul><li>2 carrots</li><li>1 onion</li><li>500 g beef</li></ul>
  <h2>Method</h2><ol><li>Brown the beef.</li><li>Add the vegetables and simmer.</li></ol>
</body></html>`;
const RECIPE_SCHEMA = { title: "string", ingredients: ["string"], instructions: ["string"] };

const JOBS = `<html><head><title>Careers at Northpeak</title></head><body>
  <h1>Open positions</h1>
  <ul class="jobs">
    ${["Backend Engineer", "Data Analyst", "Product Designer", "Support Lead", "Site Reliability Engineer"]
      .map(
        (title, i) =>
          `<li class="job"><h3><a href="/jobs/${i + 1}">${title}</a></h3><span class="location">${["Berlin", "Lisbon", "Remote", "Oslo", "Madrid"][i]}</span></li>`,
      )
      .join("\n    ")}
  </ul>
</body></html>`;
const JOBS_SCHEMA = { jobs: [{ title: "string", location: "string" }] };

describe("hybrid extraction: the model fills and corrects, never erases", () => {
  it("keeps every value the builtin engine read when the model answers null for everything", async () => {
    for (const [html, schema] of [
      [RECIPE, RECIPE_SCHEMA],
      [JOBS, JOBS_SCHEMA],
    ] as const) {
      const builtin = await extract(html, schema);
      const hybrid = await extract(html, schema, nothing);
      expect(hybrid.data).toEqual(builtin.data);
      // Nothing the model answered is in doubt, and the builtin engine's reading keeps its own status.
      expect(hybrid.codes.filter((code) => !code.startsWith("prefilled"))).toEqual([]);
      expect(hybrid.status).toEqual(builtin.status);
    }
    const { data } = await extract(RECIPE, RECIPE_SCHEMA, nothing);
    expect(data).toEqual({
      title: "Ridge Stew",
      ingredients: ["2 carrots", "1 onion", "500 g beef"],
      instructions: ["Brown the beef.", "Add the vegetables and simmer."],
    });
    const jobs = (await extract(JOBS, JOBS_SCHEMA, nothing)).data.jobs as unknown[];
    expect(jobs).toHaveLength(5);
  });

  it("keeps the longer list when the model returns fewer records, as a conflict", async () => {
    const { data, status, codes, evidence } = await extract(JOBS, JOBS_SCHEMA, () => ({
      jobs: [{ title: "Backend Engineer", location: "Berlin" }],
    }));
    expect(data.jobs).toHaveLength(5);
    expect(codes).toContain("merge-conflict /jobs");
    expect(codes.some((code) => code.startsWith("list-incomplete"))).toBe(false);
    expect(status["/jobs"]).toBe("conflict");
    expect(evidence.get("/jobs")?.alternative).toMatchObject({
      valueJson: JSON.stringify([{ title: "Backend Engineer", location: "Berlin" }]),
      source: "model",
      grounded: true,
    });
  });

  it("keeps a model's list that shows more of the page than the builtin engine's, though one value is off the page", async () => {
    const html = JOBS.replaceAll("</span></li>", "</span><p>Senior</p></li>");
    const titles = [
      "Backend Engineer",
      "Data Analyst",
      "Product Designer",
      "Support Lead",
      "Site Reliability Engineer",
    ];
    const locations = ["Berlin", "Lisbon", "Remote", "Oslo", "Madrid"];
    const read = titles.map((title, i) => ({ title, location: locations[i], level: i === 4 ? "Principal" : "Senior" }));
    const { data, codes } = await extract(
      html,
      { jobs: [{ title: "string", location: "string", level: "string" }] },
      () => ({
        jobs: read,
      }),
    );
    expect(data.jobs).toEqual(read);
    expect(codes).toContain("ungrounded /jobs/4/level");
  });

  it("keeps the model's correction, as a conflict with both values in the evidence", async () => {
    const page = RECIPE.replace("<h1>Ridge Stew</h1>", "<h1>Ridge Stew</h1><p>Also known as Mountain Stew.</p>");
    const { data, status, codes, evidence } = await extract(page, RECIPE_SCHEMA, () => ({
      title: "Mountain Stew",
      ingredients: ["2 carrots", "1 onion", "500 g beef"],
      instructions: ["Brown the beef.", "Add the vegetables and simmer."],
    }));
    expect(data.title).toBe("Mountain Stew");
    expect(codes).toContain("merge-conflict /title");
    expect(status["/title"]).toBe("conflict");
    expect(evidence.get("/title")).toMatchObject({
      source: "model",
      grounded: true,
      status: "conflict",
      alternative: { valueJson: '"Ridge Stew"', source: "json-ld", text: "Ridge Stew", grounded: true },
    });
  });

  it("keeps the builtin engine's value over a model's that is not on the page", async () => {
    const { data, status, codes, evidence } = await extract(RECIPE, RECIPE_SCHEMA, () => ({
      title: "Grandma's Famous Goulash",
      ingredients: null,
      instructions: null,
    }));
    expect(data.title).toBe("Ridge Stew");
    expect(codes).toContain("merge-conflict /title");
    // The model's own warning was of its value, which is not the answer.
    expect(codes).not.toContain("ungrounded /title");
    expect(status["/title"]).toBe("conflict");
    expect(evidence.get("/title")).toMatchObject({
      source: "json-ld",
      alternative: { valueJson: '"Grandma\'s Famous Goulash"', source: "model", grounded: false },
    });
  });
});

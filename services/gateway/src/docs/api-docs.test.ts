import { readFile } from "node:fs/promises";
import { PROBLEM_TYPES, problemTypeUri } from "@winnow/platform";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parseScrapeRequest, scrapeRequestSchema } from "../scrape/scrape-request.js";
import { withGeneratedTables } from "./api-markdown.js";
import { renderDocsPage } from "./docs-page.js";
import { openApiDocument } from "./openapi.js";

const slugs = Object.keys(PROBLEM_TYPES);

describe("the API documents", () => {
  it("docs/api.md's tables are what the code generates (run `npm run docs` when this fails)", async () => {
    const readme = await readFile(new URL("../../../../docs/api.md", import.meta.url), "utf8");
    expect(withGeneratedTables(readme)).toBe(readme);
  });

  it("OpenAPI publishes the very schema requests are validated with, and every problem type", () => {
    const doc = openApiDocument() as {
      openapi: string;
      paths: {
        "/scrape": {
          post: {
            responses: Record<string, { description: string }>;
            requestBody: { content: { "application/json": { example: unknown } } };
          };
        };
      };
      components: { schemas: { ScrapeRequest: unknown } };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.schemas.ScrapeRequest).toBe(scrapeRequestSchema);
    const responses = doc.paths["/scrape"].post.responses;
    for (const slug of slugs) {
      const status = String(PROBLEM_TYPES[slug as keyof typeof PROBLEM_TYPES].status);
      expect(responses[status]?.description, slug).toContain(`\`${slug}\``);
    }
    // The published example is a valid request.
    expect(() =>
      parseScrapeRequest(doc.paths["/scrape"].post.requestBody.content["application/json"].example),
    ).not.toThrow();
    // And the published schema is valid JSON Schema 2020-12.
    expect(() => new Ajv2020().compile(scrapeRequestSchema)).not.toThrow();
  });

  it("the /docs page links every problem type", () => {
    const html = renderDocsPage();
    for (const slug of slugs) expect(html).toContain(`id="${slug}"`);
    expect(html).toContain(problemTypeUri("invalid-request").replace("invalid-request", ""));
    expect(html).not.toMatch(/<script/i);
  });

  it("the /docs page lists every option, max_age included, and the cost and cache headers", () => {
    const html = renderDocsPage();
    for (const name of Object.keys(scrapeRequestSchema.properties.options.properties))
      expect(html).toContain(`<code>${name}</code>`);
    expect(html).toContain("<code>max_age</code>");
    for (const header of ["x-winnow-path", "x-winnow-tokens-in", "Winnow-Cache"])
      expect(html).toContain(`<code>${header}</code>`);
  });

  it("the /docs page links the dashboard and names both client libraries", () => {
    const html = renderDocsPage();
    expect(html).toContain('<a href="/dashboard">');
    expect(html).toContain("<code>clients/node</code>");
    expect(html).toContain("<code>npm install ./clients/node</code>");
    expect(html).toContain("<code>clients/python</code>");
    expect(html).toContain("<code>pip install ./clients/python</code>");
  });
});

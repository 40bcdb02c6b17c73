/** POST /v1/scrape and /v2/scrape in the OpenAPI document: Firecrawl's shapes, for what Winnow does of them. */
export function firecrawlPaths(): Record<string, unknown> {
  const failure = {
    description:
      "Firecrawl's failure shape: `error` says what is wrong (a 400 names each option or format Winnow does not support), `code` is the problem type, `details` the violations by JSON pointer.",
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["success", "error", "code"],
          properties: {
            success: { const: false },
            error: { type: "string" },
            code: { type: "string" },
            details: { type: "array", items: { type: "object" } },
          },
        },
      },
    },
  };
  const answer = {
    description:
      "The page's answer: `json` in the schema's shape (exactly POST /scrape's answer) and/or `markdown` (the main content), with `metadata`. Each value's status and the warnings are in POST /scrape's headers.",
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: {
            success: { const: true },
            data: {
              type: "object",
              properties: {
                json: { type: "object" },
                markdown: { type: "string" },
                metadata: {
                  type: "object",
                  properties: {
                    title: { type: "string" },
                    sourceURL: { type: "string" },
                    url: { type: "string" },
                    statusCode: { type: "integer" },
                    contentType: { type: "string" },
                    cacheState: { enum: ["hit", "miss"] },
                  },
                },
                warning: { type: "string" },
              },
            },
          },
        },
      },
    },
  };
  const common = {
    url: { type: "string" },
    onlyMainContent: { const: true, description: "Markdown is always the main content; `false` is refused." },
    waitFor: {
      type: "integer",
      description: "Milliseconds; above 0 asks for the browser, which waits for the page to settle (no fixed sleep).",
    },
    timeout: { type: "integer", maximum: 120_000, description: "Milliseconds: options.timeout_ms." },
    maxAge: { type: "integer", description: "Milliseconds: options.max_age, in whole seconds." },
  };
  const operation = (version: "v1" | "v2", formats: unknown, extra: Record<string, unknown>) => ({
    post: {
      operationId: `firecrawlScrape${version.toUpperCase()}`,
      summary: `Firecrawl-compatible scrape (${version}): JSON in a schema's shape and/or markdown`,
      description:
        "Firecrawl's request, on POST /scrape's path: the same key, limits, cache and usage. A JSON format needs a `schema` (a JSON Schema, translated as on POST /scrape); its `prompt` is the `task_description`. Any other option or format answers 400 naming it.",
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { type: "object", required: ["url"], properties: { ...common, formats, ...extra } },
          },
        },
      },
      responses: { "200": answer, "400": failure, "401": failure, "422": failure, "429": failure, "502": failure },
    },
  });
  return {
    "/v1/scrape": operation(
      "v1",
      { type: "array", items: { enum: ["json", "markdown"] } },
      {
        jsonOptions: { type: "object", properties: { schema: { type: "object" }, prompt: { type: "string" } } },
      },
    ),
    "/v2/scrape": operation(
      "v2",
      {
        type: "array",
        items: {
          oneOf: [
            { const: "markdown" },
            {
              type: "object",
              required: ["type", "schema"],
              properties: { type: { const: "json" }, schema: { type: "object" }, prompt: { type: "string" } },
            },
          ],
        },
      },
      {},
    ),
  };
}

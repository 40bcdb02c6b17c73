/**
 * A page whose browser render runs out of time after its HTML arrived is answered from the HTML in hand, marked
 * `render-incomplete`; only a page whose HTML never arrived is a `target-timeout`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

/** Never answered within a test: a script the parser waits for in vain. */
const NEVER_MS = 30_000;
const RECIPE = {
  "@context": "https://schema.org",
  "@type": "Recipe",
  name: "Lemon Tart",
  author: { "@type": "Person", name: "Ada Baker" },
  recipeIngredient: ["3 lemons", "200 g sugar", "4 eggs"],
};
/** Complete JSON-LD in the first response, then third-party scripts: refused ones, and one of the site's that hangs. */
const STALLED_RECIPE = `<!doctype html><html><head><title>Lemon Tart</title>
<script type="application/ld+json">${JSON.stringify(RECIPE)}</script>
<script src="http://10.20.0.1/analytics.js"></script>
<link rel="stylesheet" href="https://192.168.7.1/theme.css">
<script src="/never.js"></script>
</head><body><h1>Lemon Tart</h1><p>By Ada Baker</p></body></html>`;
const SCHEMA = { recipe_title: "string", author_name: "string", ingredients: ["string"] };

let run: RunningStack;

beforeAll(async () => {
  run = await launchStack(
    {
      "/stalled-recipe": { body: STALLED_RECIPE },
      "/never.js": { type: "text/javascript", body: "", delayMs: NEVER_MS },
      "/never": { body: "<!doctype html><title>never</title>", delayMs: NEVER_MS },
    },
    { RENDER_TIMEOUT_MS: "3000" },
  );
});
afterAll(async () => {
  await run?.stop();
});

describe("a browser render out of time", () => {
  it("answers 200 with the data read from the HTML in hand, and says render-incomplete", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/stalled-recipe`,
      schema: SCHEMA,
      options: { render: "browser" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("winnow-warnings")).toBe("render-incomplete");
    expect(res.headers.get("x-winnow-render-path")).toBe("browser");
    expect(await res.json()).toMatchObject({
      recipe_title: "Lemon Tart",
      author_name: "Ada Baker",
      ingredients: ["3 lemons", "200 g sugar", "4 eggs"],
    });
  });

  it("answers 504 target-timeout when the page's HTML never arrived", async () => {
    const res = await run.scrape({ url: `${run.site.origin}/never`, schema: SCHEMA, options: { render: "browser" } });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { type: string }).type).toBe("https://winnow.dev/problems/target-timeout");
    expect(res.headers.get("winnow-warnings")).toBeNull();
  });
});

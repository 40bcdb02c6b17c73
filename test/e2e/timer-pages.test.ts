/**
 * Pages built by timers after load are read once they are quiet, with no `wait_for`; a page that never stops
 * changing still answers, with what it shows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const RECIPE = {
  "@context": "https://schema.org",
  "@type": "Recipe",
  name: "Lemon Tart",
  recipeIngredient: ["3 lemons", "200 g sugar"],
};
/** An empty shell (auto mode takes the browser) that fills itself in, data included, 300 ms after load. */
const LATER_RECIPE = `<!doctype html><html><head><title>Recipes</title></head><body><div id="root"></div><script>
addEventListener("load", () => setTimeout(() => {
  const data = document.createElement("script");
  data.type = "application/ld+json";
  data.textContent = ${JSON.stringify(JSON.stringify(RECIPE))};
  document.head.append(data);
  document.getElementById("root").innerHTML = "<h1>Lemon Tart</h1><ul><li>3 lemons</li><li>200 g sugar</li></ul>";
}, 300));
</script></body></html>`;
/** Adds a line every 50 ms for as long as it is open. */
const TICKER = `<!doctype html><html><head><title>Live scores</title></head><body><h1>Live scores</h1><ol id="ticks"></ol>
<script>setInterval(() => document.getElementById("ticks").insertAdjacentHTML("beforeend", "<li>Goal</li>"), 50);</script>
</body></html>`;

let run: RunningStack;

beforeAll(async () => {
  run = await launchStack({ "/later-recipe": { body: LATER_RECIPE }, "/ticker": { body: TICKER } });
});
afterAll(async () => {
  await run?.stop();
});

describe("pages that change after load", () => {
  it("reads what a page adds 300 ms after load, without wait_for", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/later-recipe`,
      schema: { recipe_title: "string", ingredients: ["string"] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-winnow-render-path")).toBe("browser");
    expect(await res.json()).toEqual({ recipe_title: "Lemon Tart", ingredients: ["3 lemons", "200 g sugar"] });
  });

  it("answers a page that changes forever, complete, before its deadline", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/ticker`,
      schema: { title: "string" },
      options: { render: "browser" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("winnow-warnings")).toBeNull();
    expect(await res.json()).toEqual({ title: "Live scores" });
  });
});

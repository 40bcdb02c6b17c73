import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { extractBuiltin } from "./index.js";

function run(html: string, schema: Record<string, unknown>) {
  const tree = parseSchema(schema);
  return extractBuiltin(tree, loadPage(html, "https://board.example/posts/7"));
}

const LEAD =
  "Maintain the orchard's irrigation and prune the older trees. Report weekly to the head grower on the harvest.";

describe("a description no structured data declares", () => {
  it("is a record page's one paragraph of prose, not its tagline or its labelled lines", () => {
    const html = `<header><p>Seasonal work for growers and pickers, all year round.</p></header>
      <main><h1>Board</h1><p class="tag">Work for the season</p><div class="box"><h2>Orchard hand</h2>
      <p>${LEAD}</p><p><b>Place:</b> Hillside farm</p></div></main>`;
    expect(run(html, { title: "string", description: "string" }).description).toBe(LEAD);
  });

  it("is none of an article's several paragraphs, nor the page's lone paragraph where a meta tag declares one", () => {
    const article = `<main><h1>Notes</h1><p>${LEAD}</p><p>${LEAD.replace("orchard", "vineyard")}</p></main>`;
    expect(run(article, { description: "string" }).description).toBeNull();
    const declared = `<head><meta name="description" content="Hands wanted."></head><main><p>${LEAD}</p></main>`;
    expect(run(declared, { description: "string" }).description).toBe("Hands wanted.");
  });
});

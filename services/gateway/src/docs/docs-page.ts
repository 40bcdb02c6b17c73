/**
 * The API reference at /docs: one static HTML page rendered from the same
 * sources as /openapi.json (the request schema, the response headers, the
 * problem catalogue). No scripts, no external assets.
 */
import { PROBLEM_TYPES, problemTypeUri } from "@winnow/platform";
import { escapeHtml } from "../http/escape-html.js";
import { scrapeRequestSchema } from "../scrape/scrape-request.js";
import { problemsByStatus, SUCCESS_HEADERS } from "./openapi.js";

/** The catalogue's texts use `code` spans; everything else is escaped. */
const inline = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
const table = (head: string[], rows: string[][]) =>
  `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`)
    .join("")}</tbody></table>`;

const EXAMPLE = `curl -s $WINNOW_URL/scrape \\
  -H 'content-type: application/json' \\
  -H "x-api-key: $WINNOW_API_KEY" \\
  -d '{"url": "https://shop.example/products/ridgeline",
       "schema": {"product_name": "string", "price_usd": "number",
                  "reviews": [{"author": "string", "rating_1_to_5": "integer"}]}}'`;

export function renderDocsPage(): string {
  const required = new Set<string>(scrapeRequestSchema.required);
  const fields = Object.entries(scrapeRequestSchema.properties).map(([name, schema]) => {
    const s = schema as { type?: string; description?: string };
    return [
      `<code>${escapeHtml(name)}</code>`,
      escapeHtml(s.type ?? "object"),
      required.has(name) ? "required" : "optional",
      inline(s.description ?? scrapeRequestSchema.$defs.Schema.description),
    ];
  });
  const options = Object.entries(scrapeRequestSchema.properties.options.properties).map(([name, schema]) => {
    const s = schema as { type?: string; enum?: string[]; description: string };
    return [`<code>${escapeHtml(name)}</code>`, escapeHtml(s.type ?? s.enum!.join(" | ")), inline(s.description)];
  });
  const problems = [...problemsByStatus()].flatMap(([status, slugs]) =>
    slugs.map((slug) => [
      `<code id="${slug}">${slug}</code>`,
      String(status),
      PROBLEM_TYPES[slug].retryable ? "yes" : "no",
      inline(PROBLEM_TYPES[slug].when),
    ]),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Winnow API reference</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1b1b1b}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f4f4f4;padding:1rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
h2{margin-top:2.5rem}
</style></head><body>
<h1>Winnow API reference</h1>
<p>Send a page URL and a schema of field names and types; get JSON in exactly the schema's shape, <code>null</code> for what the page does not say. Machine-readable: <a href="/openapi.json">OpenAPI 3.1</a>.</p>
<h2 id="clients">Dashboard and clients</h2>
<p>Sign up, see and refresh your API key, follow your usage and try requests in the <a href="/dashboard">dashboard</a>.</p>
<p>Client libraries, in the Winnow repository (each folder's <code>README.md</code> shows how to use it):</p>
<ul>
<li>Node.js: <code>@winnow/client</code> in <code>clients/node</code>; install with <code>npm install ./clients/node</code>.</li>
<li>Python: <code>winnow-client</code> (imported as <code>winnow</code>) in <code>clients/python</code>; install with <code>pip install ./clients/python</code>.</li>
</ul>
<h2 id="auth">Authentication</h2>
<p>Every request carries your API key in the <code>x-api-key</code> header. A missing, wrong or refreshed key gets <a href="#unauthorized">401</a>.</p>
<h2 id="scrape">POST /scrape</h2>
<pre>${escapeHtml(EXAMPLE)}</pre>
<h3>Request body (<code>application/json</code>)</h3>
${table(["Field", "Type", "", "Meaning"], fields)}
<p>Unknown fields are refused.</p>
<h3 id="options">Options (<code>options</code>, each optional)</h3>
${table(["Field", "Type", "Meaning"], options)}
<h3>The schema language</h3>
${table(
  ["Form", "Meaning"],
  [
    ['<code>"string"</code>, <code>"number"</code>, <code>"integer"</code>, <code>"boolean"</code>', "a scalar"],
    ["<code>{ ... }</code>", "a nested object with its own fields"],
    ["<code>[ { ... } ]</code>", "an array of objects with the item schema's fields"],
    ['<code>[ "string" ]</code>', "an array of scalars"],
    ['<code>"array"</code>, <code>"object"</code>', "any JSON array / object"],
  ],
)}
<p>Field names are the main hint to the model: <code>price_usd</code>, <code>published_date_iso8601</code> and <code>rating_1_to_5</code> work better than <code>price</code>, <code>date</code> and <code>rating</code>.</p>
<h3>Response</h3>
<p><code>200</code> with a JSON object in exactly the schema's shape. Headers:</p>
${table(
  ["Header", ""],
  SUCCESS_HEADERS.map((h) => [`<code>${escapeHtml(h.name)}</code>`, inline(h.description)]),
)}
<h2 id="errors">Errors</h2>
<p>Every failure is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>request_id</code> and <code>retryable</code>; invalid requests add <code>errors</code> (each with <code>path</code> and <code>description</code>). Types are <code>${escapeHtml(problemTypeUri("invalid-request").replace("invalid-request", ""))}</code> followed by:</p>
${table(["Type", "Status", "Retry?", "When"], problems)}
<h2 id="health">Health</h2>
<p><code>GET /healthz</code>: the process is up. <code>GET /readyz</code>: every backend reports SERVING.</p>
</body></html>`;
}

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
  `<div class="scroll"><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`)
    .join("")}</tbody></table></div>`;

const EXAMPLE = `curl -s $WINNOW_BASE_URL/scrape \\
  -H 'content-type: application/json' \\
  -H "x-api-key: $WINNOW_API_KEY" \\
  -d '{"url": "https://shop.example/products/ridgeline",
       "schema": {"product_name": "string", "price_usd": "number",
                  "reviews": [{"author": "string", "rating_1_to_5": "integer"}]}}'`;

const OPTIONS_EXAMPLE = `{"url": "https://shop.example/item/42", "schema": {"price_usd": "number"},
 "options": {"render": "browser", "wait_for": ".price", "timeout_ms": 10000, "evidence": true}}`;

const ACCOUNT_EXAMPLE = `curl -s $WINNOW_BASE_URL/account -H "x-api-key: $WINNOW_API_KEY"
{"account_id": "...", "key_id": "...",
 "limits": {"plan": "...", "requests_per_minute": 60, "max_concurrent_scrapes": 4},
 "webhook_secret": "..."}`;

const NODE_EXAMPLE = `import { Winnow } from "@winnow/client";
const winnow = new Winnow({ apiKey: process.env.WINNOW_API_KEY, baseUrl: process.env.WINNOW_BASE_URL });
const { data: product, status } = await winnow.scrape({
  url: "https://shop.example/products/ridgeline",
  schema: { product_name: "string", price_usd: "number" },
});`;

const PYTHON_EXAMPLE = `from winnow import Winnow
client = Winnow()  # reads WINNOW_API_KEY and WINNOW_BASE_URL
product = client.scrape("https://shop.example/products/ridgeline",
                        {"product_name": "string", "price_usd": "number"})`;

const BATCH_EXAMPLE = `curl -s $WINNOW_BASE_URL/batch/scrape \\
  -H 'content-type: application/json' \\
  -H "x-api-key: $WINNOW_API_KEY" \\
  -d '{"urls": ["https://shop.example/products/ridgeline", "https://shop.example/products/summit"],
       "schema": {"product_name": "string", "price_usd": "number"},
       "webhook": {"url": "https://hooks.example/winnow"}}'
curl -s $WINNOW_BASE_URL/batch/scrape/<id> -H "x-api-key: $WINNOW_API_KEY"`;

const VERIFY_EXAMPLE = `// Node.js (@winnow/client); the raw body, before JSON.parse
import { verifyWebhookSignature } from "@winnow/client";
const ok = await verifyWebhookSignature(rawBody, req.headers["winnow-signature"], secret);

# Python (winnow)
from winnow import verify_webhook_signature
ok = verify_webhook_signature(raw_body, request.headers["Winnow-Signature"], secret)

# Anywhere: hex(HMAC-SHA256(secret, t + "." + raw_body)) == v1, and t within 5 minutes of now`;

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
    return [
      `<code>${escapeHtml(name)}</code>`,
      s.enum ? s.enum.map((value) => `<code>"${escapeHtml(value)}"</code>`).join(" | ") : escapeHtml(s.type ?? ""),
      inline(s.description),
    ];
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
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1b1b1b;overflow-wrap:anywhere}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f4f4f4;padding:1rem;overflow-x:auto}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem}h2{margin-top:2.5rem}
@media (max-width:40rem){body{padding:.75rem}td,th{padding:.3rem .2rem}}
</style></head><body>
<nav><a href="/dashboard">Dashboard</a><a href="#scrape">POST /scrape</a><a href="#options">Options</a><a href="#json-schema">JSON Schema</a><a href="#batch">Batch jobs</a><a href="#errors">Errors</a><a href="#account">GET /account</a><a href="#clients">Clients</a></nav>
<h1>Winnow API reference</h1>
<p>Send a page URL and a schema of field names and types; get JSON in exactly the schema's shape, <code>null</code> for what the page does not say. Machine-readable: <a href="/openapi.json">OpenAPI 3.1</a>.</p>
<h2 id="clients">Dashboard and clients</h2>
<p>Sign up, see and refresh your API key, follow your usage and try requests in the <a href="/dashboard">dashboard</a>.</p>
<p>Client libraries, in the Winnow repository (each folder's <code>README.md</code> has the whole of its API): they send the key, give each value's status with its meaning in one line (<code>describeStatus</code>, <code>describe_status</code>), raise a typed exception for every problem type and retry <code>429</code>, <code>503</code> and network failures with backoff.</p>
<ul>
<li>Node.js: <code>@winnow/client</code> in <code>clients/node</code>; install with <code>npm install ./clients/node</code>. Types are inferred from your schema.</li>
<li>Python: <code>winnow-client</code> (imported as <code>winnow</code>) in <code>clients/python</code>; install with <code>pip install ./clients/python</code>. Standard library only, with an asyncio variant.</li>
</ul>
<pre>${escapeHtml(NODE_EXAMPLE)}</pre>
<pre>${escapeHtml(PYTHON_EXAMPLE)}</pre>
<h2 id="auth">Authentication</h2>
<p>Every request carries your API key in the <code>x-api-key</code> header. A missing, wrong or refreshed key gets <a href="#unauthorized">401</a>.</p>
<h2 id="scrape">POST /scrape</h2>
<pre>${escapeHtml(EXAMPLE)}</pre>
<h3>Request body (<code>application/json</code>)</h3>
${table(["Field", "Type", "", "Meaning"], fields)}
<p>Unknown fields are refused.</p>
<h3 id="options">Options (<code>options</code>, every field optional)</h3>
${table(["Field", "Type", "Meaning"], options)}
<pre>${escapeHtml(OPTIONS_EXAMPLE)}</pre>
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
<h3 id="json-schema">A JSON Schema as <code>schema</code></h3>
<p>A JSON Schema object (with <code>$schema</code>, <code>"type": "object"</code> and <code>properties</code>, or a root <code>$ref</code>, as OpenAI and Firecrawl take) is translated into the schema language and answered exactly like its translation:</p>
${table(
  ["JSON Schema", "Schema language"],
  [
    ['<code>{"type": "object", "properties": {...}}</code>', "<code>{ ... }</code>"],
    ['<code>{"type": "array", "items": {"type": "object", ...}}</code>', "<code>[ { ... } ]</code>"],
    ['<code>{"type": "array", "items": {"type": "string"}}</code>', '<code>[ "string" ]</code>'],
    ['<code>{"type": "integer"}</code> (and the other scalars)', '<code>"integer"</code>'],
    [
      '<code>"type": ["string", "null"]</code>, <code>"nullable": true</code>, <code>anyOf</code> with <code>{"type": "null"}</code>',
      "the type without null (every field may be null)",
    ],
    ['<code>{"$ref": "#/$defs/Name"}</code> (a pointer within the schema)', "the schema it names, in its place"],
  ],
)}
<p>A field's <code>description</code> is given to the model as that field's hint. <code>enum</code> and <code>const</code> on a scalar field hold both engines' answers: the model is asked within them, a value written otherwise (case, spaces, <code>_</code>, <code>-</code>) is answered in the schema's spelling, any other is <code>null</code> (<code>not-found</code>, a <code>dropped-value</code> warning). <code>format</code> <code>date</code>, <code>date-time</code>, <code>uri</code> and <code>email</code>: a value in another written form that reads one way only is normalised (a written date to <code>YYYY-MM-DD</code>, a relative link to an absolute URL); one that reads as none is kept, <code>unverified</code>, with a <code>format-unmet</code> warning. Read past: <code>title</code>, other formats, <code>required</code> (every field is in every answer, null when the page does not state it), <code>default</code>, <code>examples</code>, <code>$defs</code>, boolean <code>additionalProperties</code>. Refused with <a href="#unsupported-json-schema">422</a>, each by its JSON pointer: a remote <code>$ref</code>, one that names nothing or refers to a schema containing it (a cycle), <code>anyOf</code>/<code>oneOf</code> other than nullable, <code>allOf</code>, <code>not</code>, <code>if</code>, <code>patternProperties</code>, a schema in <code>additionalProperties</code>, tuples, a field of two types, and other value constraints (<code>pattern</code>, <code>minimum</code>, ...).</p>
<h3>Response</h3>
<p><code>200</code> with a JSON object in exactly the schema's shape. Headers:</p>
${table(
  ["Header", ""],
  SUCCESS_HEADERS.map((h) => [`<code>${escapeHtml(h.name)}</code>`, inline(h.description)]),
)}
<h2 id="batch">Batch jobs: POST /batch/scrape</h2>
<pre>${escapeHtml(BATCH_EXAMPLE)}</pre>
<p>The body is POST /scrape's with <code>urls</code> (at most <code>BATCH_MAX_URLS</code>) for <code>url</code>, and an optional <code>webhook</code> (<code>url</code>, <code>events</code>: <code>page</code>, <code>completed</code>). The answer is <code>202</code> with the job's <code>id</code> and <code>status_url</code>. Each page is scraped exactly as POST /scrape would, counted against your key's plan as it is when the page runs (requests per minute and scrapes at once: a page waits in the queue, never exceeding them, while other keys' pages run); a URL POST /scrape would refuse is reported <code>failed</code>, the others run; retryable failures are tried again with backoff, and a page whose every attempt was cut short ends <a href="#page-abandoned">page-abandoned</a>. A job runs under the key that submitted it: once that key is refreshed, its pages not yet run end <a href="#key-revoked">key-revoked</a> and the job ends. A key has at most <code>BATCH_MAX_LIVE_JOBS</code> jobs running (<a href="#rate-limited">429</a> past them).</p>
<p><code>GET /batch/scrape/{id}?cursor=&amp;limit=</code>: the job's <code>status</code> (<code>running</code>, <code>completed</code>, <code>cancelled</code>), <code>counts</code> (<code>queued</code>, <code>done</code>, <code>failed</code>, <code>cancelled</code>) and a page of <code>results</code> in submission order (each: <code>index</code>, <code>url</code>, <code>status</code>, and <code>data</code> (with the evidence envelope's fields when <code>options.evidence</code>) or <code>problem</code>), with <code>next_cursor</code> for the next page. <code>DELETE /batch/scrape/{id}</code> cancels it. Another account's job is <a href="#not-found">404</a>; results are deleted <code>BATCH_RESULT_TTL_HOURS</code> after the job ends.</p>
<h3 id="webhooks">Webhooks</h3>
<p>Each event is POSTed as JSON (<code>{"id", "type": "page" | "completed", "job_id", "page" | "job"}</code>) with <code>Winnow-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256&gt;</code>, the HMAC of <code>&lt;t&gt;.&lt;raw body&gt;</code> under your account's webhook secret (random per account; on the dashboard, and <code>webhook_secret</code> in <code>GET /account</code>). Answer 2xx within <code>WEBHOOK_TIMEOUT_MS</code> (10 s); anything else is retried with backoff (the <code>id</code> stays the same). Webhooks go only to public addresses. <code>POST /account/webhook-secret/rotate</code> (or the dashboard) makes a new secret; for <code>WEBHOOK_SECRET_GRACE_HOURS</code> deliveries carry a second <code>v1=</code> by the previous one and <code>Winnow-Secret-Rotation: previous-expires=&lt;time&gt;</code>; rotating again ends the previous one at once. Verify before trusting a delivery, and refuse old timestamps:</p>
<pre>${escapeHtml(VERIFY_EXAMPLE)}</pre>
<h2 id="errors">Errors</h2>
<p>Every failure is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>request_id</code> and <code>retryable</code>; invalid requests add <code>errors</code> (each with <code>path</code> and <code>description</code>). Types are <code>${escapeHtml(problemTypeUri("invalid-request").replace("invalid-request", ""))}</code> followed by:</p>
${table(["Type", "Status", "Retry?", "When"], problems)}
<h2 id="account">GET /account</h2>
<p>With <code>x-api-key</code>: checks the key (it counts against the key's requests per minute) and answers the account it belongs to and its limits; a cheap way to test a key.</p>
<pre>${escapeHtml(ACCOUNT_EXAMPLE)}</pre>
<h2 id="health">Other endpoints</h2>
<p><code>GET /openapi.json</code>: this reference as OpenAPI 3.1. <code>GET /healthz</code>: the process is up. <code>GET /readyz</code>: every backend reports SERVING and the gateway is not draining. <code>/dashboard</code>: <a href="/dashboard">the dashboard</a>.</p>
</body></html>`;
}

/**
 * The OpenAPI 3.1 document, built from the code that enforces the contract:
 * the request JSON Schema the gateway validates with, and the problem
 * catalogue every service uses. /openapi.json, /docs and docs/api.md's tables
 * all come from here, so they cannot drift from behaviour.
 */

import { PROBLEM_TYPES, type ProblemSlug, problemTypeUri } from "@winnow/platform";
import { batchScrapeRequestSchema } from "../batch/batch-request.js";
import { firecrawlPaths } from "../firecrawl/firecrawl-openapi.js";
import { scrapeRequestSchema } from "../scrape/scrape-request.js";

export interface ResponseHeader {
  name: string;
  description: string;
}

/** Headers on a successful scrape. */
export const SUCCESS_HEADERS: ResponseHeader[] = [
  {
    name: "x-request-id",
    description: "The request's id (the caller's own when it sent a valid one); also in logs and traces.",
  },
  {
    name: "Server-Timing",
    description:
      "Time spent in `auth`, `render` and `extract`, in ms, and the renderer's own split of `render`: `render-queue` (waiting for a browser page), `render-navigation` (loading) and `render-settle` (letting the page settle), and `screenshot` when one was asked for; `auth` says `desc=\"cached\"` when the key was checked from the gateway's memory.",
  },
  {
    name: "x-winnow-engine",
    description:
      "Which engine filled the schema: `llm`, `builtin`, or `template` (every field answered by the site's learned template).",
  },
  { name: "x-winnow-render-path", description: "How the page was loaded: `static` or `browser`." },
  {
    name: "Winnow-Field-Status",
    description:
      'Each value that is not `found`, as an RFC 8941 structured-field list of JSON pointers with their `status` (see *Field status*): `"/summary";status=needs-model, "/price";status=unverified`. Every top-level field is listed when not `found`, and a value inside one when the field\'s values differ. A pointer\'s characters outside printable ASCII are percent-encoded as in a URI fragment (RFC 6901 §6). At most 32 members and 2 KiB: a last member `*;omitted=<n>` counts those left out (all are in the evidence envelope). Absent when every field is `found`.',
  },
  {
    name: "Winnow-Warnings",
    description:
      "The extractor's warnings (and the renderer's: `render-incomplete`, the page's time ran out after its HTML arrived, and the data was read from the page as it was then), as an RFC 8941 structured-field list of codes, with the `path` of the value concerned when there is one: `content-truncated, ungrounded;path=\"/price\"`. Bounded as `Winnow-Field-Status`; the messages are in the evidence envelope. Absent when there is none.",
  },
  {
    name: "x-winnow-path",
    description:
      "What answered the data, and so what it cost: `cache` (an earlier answer for the same page and question: no extraction, no model call), `template` (the site's learned template), `builtin` (the builtin engine, no model call) or `model` (the model was called; the tokens say how much).",
  },
  {
    name: "x-winnow-tokens-in",
    description: "Model tokens sent for this answer; `0` when no model was called (`cache`, `template`, `builtin`).",
  },
  { name: "x-winnow-tokens-out", description: "Model tokens received for this answer; `0` when no model was called." },
  {
    name: "Winnow-Cache",
    description:
      "What came from the scrape cache (see `options.max_age`), as an RFC 8941 dictionary: `page=hit, data=hit, age=12`. `page`: `hit` when the page was not loaded again but taken as rendered `age` seconds ago (`age=0` when loaded for this request); `data`: `hit` when the answer was kept from an earlier scrape of the same page content with the same schema, task and model. The evidence envelope repeats it as `cache`.",
  },
  {
    name: "Winnow-Pages",
    description:
      "With `options.pages` above 1 or `options.details`: the pages read for the answer, as an RFC 8941 dictionary: `listing=12, details=136, failed=1, model=3` (listing pages, records' own pages, pages of either kind that failed, and pages a model read: the rest were answered by learned templates or the builtin engine alone). A listing cut short says so in a `list-incomplete` warning.",
  },
  {
    name: "RateLimit-Limit",
    description: "The key's requests per minute (also `RateLimit-Remaining`, and `RateLimit-Reset` in seconds).",
  },
];

const problemSchema = {
  title: "Problem",
  type: "object",
  description: "An RFC 9457 problem document; every failure has one.",
  required: ["type", "title", "status", "detail", "request_id", "retryable"],
  properties: {
    type: { type: "string", format: "uri", description: "Stable problem type; see the table of types." },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string", description: "What went wrong, for a human." },
    request_id: { type: "string" },
    retryable: { type: "boolean", description: "Whether the same request may succeed later." },
    errors: {
      type: "array",
      description: "For invalid requests: each problem and where.",
      items: {
        type: "object",
        required: ["path", "description"],
        properties: { path: { type: "string" }, description: { type: "string" } },
      },
    },
    target_status: { type: "integer", description: "For target-http-error: the target site's HTTP status." },
  },
};

const EXAMPLE_REQUEST = {
  url: "https://shop.example/products/ridgeline",
  schema: {
    product_name: "string",
    price_usd: "number",
    in_stock: "boolean",
    reviews: [{ author: "string", rating_1_to_5: "integer" }],
  },
  task_description: "Prices in US dollars.",
};

const EXAMPLE_RESPONSE = {
  product_name: "Ridgeline Trail Shoe",
  price_usd: 129.99,
  in_stock: true,
  reviews: [{ author: "Ada Brook", rating_1_to_5: 5 }],
};

/**
 * Each value's status: how far it can be trusted (Winnow-Field-Status, and the evidence envelope). `meaning` is the
 * docs'; `summary`, one line of at most 100 characters, is what the playground and the clients show beside a value.
 */
export const FIELD_STATUSES: { status: string; meaning: string; summary: string }[] = [
  {
    status: "found",
    meaning:
      "The page shows this value where it was read, as whole words (structured data counts only where a shown element holds the same value), from a source reliable on sites it was not tuned on (confidence 0.7 or more); a model's value: found in the page text it read.",
    summary: "The page shows this value where it was read, from a source reliable across sites.",
  },
  {
    status: "derived",
    meaning:
      "Read from the page and converted as the field's name asks (`_minutes`, `_1_to_5`, `_iso8601`), or produced by the model for the task description.",
    summary: "Converted from the page as the field's name asks, or produced by the model for the task.",
  },
  {
    status: "unverified",
    meaning:
      "A value the page does not show as answered (structured data no shown element states, a model's value not in the text it read), or from a source less reliable across sites: check it before relying on it.",
    summary: "Not confirmed: the page does not show it where it was read, or its source is less reliable.",
  },
  {
    status: "absent",
    meaning:
      "`null`: the page does not state it. Said only where the page names nothing of the field (no word of its name, no label pages use for it) and the field is one pages name where they state it.",
    summary: "null: the page does not state it (it names nothing of this field).",
  },
  {
    status: "not-found",
    meaning:
      "`null`: no value was read, but the page may state one: it names the field, or the field is one pages state without a label (a heading, a byline, a price, running text). A model may find it.",
    summary: "null: no value was read, but the page may state one (a model may find it).",
  },
  {
    status: "conflict",
    meaning:
      "Readings disagree: parts of the page (the first part's value was kept), or the builtin engine and the model (the model's value was kept unless it is not on the page or is a shorter list; the evidence's `alternative` holds the other), or a listing and a record's own page (`options.details`: the listing's value was kept, the evidence's `alternative` holds the record page's). A `merge-conflict` warning says which engines disagreed.",
    summary: "Readings differ (page parts, engines, or a listing and a record's page); evidence has the other.",
  },
  {
    status: "truncated",
    meaning:
      "The part of the page that may hold it was not read (`content-truncated`, `render-incomplete`), or a list holds fewer records than the page shows (`list-incomplete`), or a record's own page was not read (`detail-failed`, with `options.details`).",
    summary: "Part of the page that may hold it was not read, or a list has fewer records than the page.",
  },
  {
    status: "needs-model",
    meaning:
      "`null`: the task description asks for it and only a model produces it, but the builtin engine answered (no model is configured).",
    summary: "null: the task asks for it and only an AI model produces it; none is configured.",
  },
];

const STATUS_NAMES = FIELD_STATUSES.map(({ status }) => status);

/** Sources a value's evidence names: where the engine read it. */
const EVIDENCE_SOURCES = ["json-ld", "microdata", "meta", "heading", "byline", "label", "layout", "template", "model"];

const evidenceSchema = {
  title: "Evidence",
  type: "object",
  description: "Why a value is what it is.",
  required: ["source", "confidence", "grounded"],
  properties: {
    page: {
      type: "string",
      description:
        "With `options.pages` or `options.details`: the URL of the page the value was read from (a listing page, or the record's own page).",
    },
    source: {
      enum: EVIDENCE_SOURCES,
      description:
        "Where the value was read: structured data (`json-ld`, `microdata`), a meta tag or the title (`meta`), the page's heading, its byline, a labelled value (`label`: a table row, \"Label: value\"), the page's layout (`layout`: repeated blocks, the buy box), a learned template of the site (`template`), or the AI model (`model`).",
    },
    text: {
      type: "string",
      maxLength: 300,
      description:
        "The page text the value was read from (for structured data, the value as the data states it). Absent where the value was not read from the page: a value the model derived (from `task_description`, a conversion, a yes/no) is given no made-up text.",
    },
    selector: {
      type: "string",
      description:
        "A CSS selector of the element the value was read from; absent when it did not come from the page's markup (JSON-LD, the model).",
    },
    confidence: {
      type: "number",
      minimum: 0,
      maximum: 1,
      description:
        "How sure the engine is. The builtin engine answers at 0.6 or more; a model's value found on the page is 0.8, a derived one 0.5, one not found 0.3.",
    },
    grounded: {
      type: "boolean",
      description:
        "Whether the value is on the page; `false` for a model's value grounding did not find, and for derived values.",
    },
    status: { enum: STATUS_NAMES, description: "The value's status (see *Field status*)." },
    alternative: {
      type: "object",
      description:
        "Only where two readings differ (status `conflict`), at the field's pointer: the value not kept. With `options.details`, the record's own page's value where the listing states another (the listing's is kept). The model's value is kept (it corrects) unless grounding did not find it on the page or its list is shorter; a model's null never replaces a value the builtin engine read from the page.",
      required: ["value", "source", "grounded"],
      properties: {
        value: { description: "The value not kept, in the field's shape." },
        source: { enum: EVIDENCE_SOURCES, description: "Where it was read." },
        text: { type: "string", maxLength: 300, description: "The page text it was read from, when there is one." },
        grounded: { type: "boolean", description: "Whether it is on the page." },
      },
    },
  },
};

const evidenceResponseSchema = {
  title: "EvidenceResponse",
  type: "object",
  description: "The answer with `options.evidence`: the data unchanged, and the evidence of its values.",
  required: ["data", "evidence", "status", "warnings", "cache"],
  properties: {
    data: { type: "object", description: "Exactly the answer without `options.evidence`: the schema's shape." },
    evidence: {
      type: "object",
      description:
        "By JSON pointer (RFC 6901) of a field or an array item (`/price`, `/ingredients/0`, `/author/name`): each non-null value that has evidence.",
      additionalProperties: { $ref: "#/components/schemas/Evidence" },
    },
    status: {
      type: "object",
      description:
        "By JSON pointer: every top-level field's status (the worst of its values'), and each value inside a field whose values differ that is not `found` (see *Field status*).",
      additionalProperties: { enum: STATUS_NAMES },
    },
    warnings: {
      type: "array",
      description:
        "What the extractor noticed: `content-truncated`, `render-incomplete`, `ungrounded`, `merge-conflict`, `list-incomplete`, `detail-failed`, `needs-model`, `prefilled`, `template`, `coerced`, `dropped-value`, `format-unmet`.",
      items: {
        type: "object",
        required: ["code", "message"],
        properties: {
          code: { type: "string" },
          message: { type: "string" },
          path: { type: "string", description: "The JSON pointer of the value concerned, when there is one." },
        },
      },
    },
    cache: {
      type: "object",
      description: "What came from the scrape cache, as the `Winnow-Cache` header says it.",
      required: ["page", "data", "age_seconds"],
      properties: {
        page: { enum: ["hit", "miss"], description: "`hit`: the page was not loaded again (see `options.max_age`)." },
        data: {
          enum: ["hit", "miss"],
          description: "`hit`: the answer was kept from an earlier scrape of the same page.",
        },
        age_seconds: {
          type: "integer",
          description: "How long ago the page was loaded; 0 when loaded for this request.",
        },
      },
    },
    markdown: {
      type: "string",
      description:
        'With `options.formats` holding `"markdown"`: the page\'s main content as markdown (navigation, banners, footers and forms left out; links absolute).',
    },
    screenshot: {
      type: "string",
      description:
        "With `options.screenshot`: a JPEG of the page's top with the evidence's elements outlined, as a `data:image/jpeg;base64,` URL.",
    },
  },
};

const EXAMPLE_EVIDENCE_RESPONSE = {
  data: EXAMPLE_RESPONSE,
  evidence: {
    "/product_name": {
      source: "json-ld",
      text: "Ridgeline Trail Shoe",
      confidence: 0.9,
      grounded: true,
      status: "found",
    },
    "/price_usd": {
      source: "layout",
      text: "$129.99",
      selector: "#buy-box > span.price",
      confidence: 0.95,
      grounded: true,
      status: "found",
    },
    "/in_stock": {
      source: "layout",
      text: "Add to cart",
      selector: "button.add-to-cart",
      confidence: 0.7,
      grounded: true,
      status: "unverified",
    },
    "/reviews/0/author": {
      source: "layout",
      text: "Ada Brook",
      selector: "div.reviews > div:nth-of-type(1) > span.review-author",
      confidence: 0.85,
      grounded: true,
      status: "found",
    },
    "/reviews/0/rating_1_to_5": { source: "model", confidence: 0.5, grounded: false, status: "derived" },
  },
  status: {
    "/product_name": "found",
    "/price_usd": "found",
    "/in_stock": "unverified",
    "/reviews": "derived",
    "/reviews/0/rating_1_to_5": "derived",
  },
  warnings: [],
  cache: { page: "miss", data: "miss", age_seconds: 0 },
};

const batchJobSchema = {
  title: "BatchJob",
  type: "object",
  description: "A batch job's state; GET adds a page of `results` and `next_cursor`.",
  required: ["id", "status", "total", "counts", "created_at"],
  properties: {
    id: { type: "string", format: "uuid" },
    status: {
      enum: ["running", "completed", "cancelled"],
      description: "`completed` once every page is done or failed.",
    },
    total: { type: "integer", description: "URLs in the job, refused ones included." },
    counts: {
      type: "object",
      description: "Pages by state: `queued` (not finished yet), `done`, `failed`, `cancelled`.",
      properties: {
        queued: { type: "integer" },
        done: { type: "integer" },
        failed: { type: "integer" },
        cancelled: { type: "integer" },
      },
    },
    progress: {
      type: "object",
      description:
        "What the job's done pages have read so far: `pages_read` (one per URL, or a whole listing's pages and its records' own pages with `options.pages` / `options.details`) and `records` (records in the answers' lists of records).",
      properties: { pages_read: { type: "integer" }, records: { type: "integer" } },
    },
    created_at: { type: "string", format: "date-time" },
    finished_at: { type: ["string", "null"], format: "date-time" },
    expires_at: {
      type: ["string", "null"],
      format: "date-time",
      description: "When the finished job and its results are deleted (BATCH_RESULT_TTL_HOURS after it finished).",
    },
    status_url: { type: "string", description: "In the 202 answer: where to follow the job." },
    results: { type: "array", items: { $ref: "#/components/schemas/BatchResult" } },
    next_cursor: {
      type: ["string", "null"],
      description: "Pass as `cursor` for the next page of results; null after the last.",
    },
  },
};

const batchResultSchema = {
  title: "BatchResult",
  type: "object",
  description:
    "One URL of the job, in submission order; `status` is the page's state. A `done` page has `data` exactly as POST /scrape answers it, `field_status` and `warnings` (what POST /scrape's headers carry), with `options.evidence` also `evidence`, `cache` and `screenshot` as in its evidence envelope, and what answered it; a `failed` one has the `problem` POST /scrape would have answered.",
  required: ["index", "url", "status"],
  properties: {
    index: { type: "integer" },
    url: { type: "string" },
    status: { enum: ["queued", "done", "failed", "cancelled"] },
    data: { type: "object" },
    field_status: {
      type: "object",
      additionalProperties: { type: "string" },
      description: "Each field's status by JSON pointer, as `Winnow-Field-Status`.",
    },
    warnings: { type: "array", items: { type: "object" }, description: "As `Winnow-Warnings`, in full." },
    evidence: { type: "object", description: "With `options.evidence`: as in POST /scrape's evidence envelope." },
    problem: { $ref: "#/components/schemas/Problem" },
    engine: { type: "string", description: "As `x-winnow-engine`." },
    render_path: { type: "string", description: "As `x-winnow-render-path`." },
    tokens_in: { type: "integer", description: "Model tokens sent; 0 unless a model answered." },
    tokens_out: { type: "integer", description: "Model tokens received; 0 unless a model answered." },
    pages: {
      type: "object",
      description: "A `done` page's pages read, as `Winnow-Pages` counts them: `listing`, `details`, `failed`.",
      properties: { listing: { type: "integer" }, details: { type: "integer" }, failed: { type: "integer" } },
    },
    records: {
      type: "integer",
      description: "With lists of records in the schema: the records in this page's answer.",
    },
  },
};

const webhookEventSchema = {
  title: "WebhookEvent",
  type: "object",
  description:
    "POSTed as JSON to the job's webhook, signed: `Winnow-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">` with the account's webhook secret (GET /account's `webhook_secret`, also on the dashboard; during a rotation's grace a second `v1=` by the previous secret). Check it with the clients' `verifyWebhookSignature` / `verify_webhook_signature` and refuse old timestamps. A delivery not answered with 2xx is retried with backoff (WEBHOOK_ATTEMPTS); `id` stays the same across retries.",
  required: ["id", "type", "job_id"],
  properties: {
    id: { type: "string", description: "`<job id>:<page index>` or `<job id>:completed`." },
    type: { enum: ["page", "completed"] },
    job_id: { type: "string" },
    page: { $ref: "#/components/schemas/BatchResult" },
    progress: {
      type: "object",
      description: "In a `page` event: the job's `progress` once this page is counted (as in BatchJob).",
      properties: { pages_read: { type: "integer" }, records: { type: "integer" } },
    },
    job: { $ref: "#/components/schemas/BatchJob" },
  },
};

/** Problem types grouped by HTTP status, lowest status first, catalogue order within one. */
export function problemsByStatus(): Map<number, ProblemSlug[]> {
  const byStatus = new Map<number, ProblemSlug[]>();
  for (const slug of Object.keys(PROBLEM_TYPES) as ProblemSlug[]) {
    const { status } = PROBLEM_TYPES[slug];
    byStatus.set(status, [...(byStatus.get(status) ?? []), slug]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

export function openApiDocument(): Record<string, unknown> {
  const problemResponses = Object.fromEntries(
    [...problemsByStatus()].map(([status, slugs]) => [
      String(status),
      {
        description: slugs.map((slug) => `\`${slug}\`: ${PROBLEM_TYPES[slug].when}`).join("\n\n"),
        headers:
          status === 429 || status === 503
            ? { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before retrying." } }
            : undefined,
        content: {
          "application/problem+json": {
            schema: { $ref: "#/components/schemas/Problem" },
            examples: Object.fromEntries(
              slugs.map((slug) => [
                slug,
                {
                  value: {
                    type: problemTypeUri(slug),
                    title: PROBLEM_TYPES[slug].title,
                    status,
                    retryable: PROBLEM_TYPES[slug].retryable,
                  },
                },
              ]),
            ),
          },
        },
      },
    ]),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "Winnow API",
      version: "1.0.0",
      description:
        "Send a page URL and a schema of field names and types; get JSON in exactly the schema's shape, `null` for what the page does not say.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    security: [{ apiKey: [] }, { bearer: [] }],
    paths: {
      "/scrape": {
        post: {
          operationId: "scrape",
          summary: "Extract data from a web page in the shape of a schema",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/ScrapeRequest" }, example: EXAMPLE_REQUEST },
            },
          },
          responses: {
            "200": {
              description:
                "The extracted data: every field of the schema present, `null` where the page does not have it. With `options.evidence`, the same data under `data`, beside `evidence`.",
              headers: Object.fromEntries(
                SUCCESS_HEADERS.map((h) => [h.name, { description: h.description, schema: { type: "string" } }]),
              ),
              content: {
                "application/json": {
                  schema: {
                    oneOf: [
                      { type: "object", title: "Data", description: "Without `options.evidence`: the schema's shape." },
                      { $ref: "#/components/schemas/EvidenceResponse" },
                    ],
                  },
                  examples: {
                    data: { summary: "The schema's shape", value: EXAMPLE_RESPONSE },
                    evidence: { summary: "With options.evidence", value: EXAMPLE_EVIDENCE_RESPONSE },
                  },
                },
              },
            },
            ...problemResponses,
          },
        },
      },
      "/batch/scrape": {
        post: {
          operationId: "batchScrape",
          summary: "Start a batch job: many URLs, one schema, each page scraped as POST /scrape would",
          description:
            "Each page runs with POST /scrape's semantics and limits, counted against the key's plan as it is when the page runs (requests per minute, scrapes at once): a page waits in the queue rather than exceed it, and other keys' pages run meanwhile. A URL that POST /scrape would refuse is reported `failed` in the results; the others run. Retryable failures are tried again with backoff (BATCH_PAGE_ATTEMPTS); a page whose every attempt was cut short is `failed` with `page-abandoned`. A job runs under the key that submitted it: once that key is refreshed, its pages not yet run are `failed` with `key-revoked` and the job ends.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/BatchScrapeRequest" },
                example: {
                  urls: ["https://shop.example/products/ridgeline", "https://shop.example/products/summit"],
                  schema: EXAMPLE_REQUEST.schema,
                  webhook: { url: "https://hooks.example/winnow", events: ["page", "completed"] },
                },
              },
            },
          },
          responses: {
            "202": {
              description: "Accepted: the job's id, state and `status_url` (also in `Location`).",
              content: { "application/json": { schema: { $ref: "#/components/schemas/BatchJob" } } },
            },
            ...problemResponses,
          },
        },
      },
      "/batch/scrape/{id}": {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        get: {
          operationId: "batchStatus",
          summary: "A batch job's state, counts and a page of its results",
          parameters: [
            {
              name: "cursor",
              in: "query",
              schema: { type: "string" },
              description: "`next_cursor` of the previous page; the first page without it.",
            },
            {
              name: "limit",
              in: "query",
              schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
              description: "Results per page.",
            },
          ],
          responses: {
            "200": {
              description: "The job; another account's job is `not-found`.",
              content: { "application/json": { schema: { $ref: "#/components/schemas/BatchJob" } } },
            },
            "400": problemResponses["400"],
            "401": problemResponses["401"],
            "404": problemResponses["404"],
            "503": problemResponses["503"],
          },
        },
        delete: {
          operationId: "batchCancel",
          summary: "Cancel a batch job: its pages not yet finished will not run",
          responses: {
            "200": {
              description: "The job, `cancelled` (or as it was, when it had finished already).",
              content: { "application/json": { schema: { $ref: "#/components/schemas/BatchJob" } } },
            },
            "401": problemResponses["401"],
            "404": problemResponses["404"],
            "503": problemResponses["503"],
          },
        },
      },
      "/account": {
        get: {
          operationId: "account",
          summary: "The key's account and plan limits; checks the key and nothing else",
          responses: {
            "200": {
              description: "The account the key belongs to.",
              content: {
                "application/json": {
                  example: {
                    account_id: "0b6c…",
                    key_id: "1Ls1U9bZMB2",
                    limits: { plan: "default", requests_per_minute: 60, max_concurrent_scrapes: 4 },
                    webhook_secret: "whsec_…",
                  },
                },
              },
            },
            "401": problemResponses["401"],
            "429": problemResponses["429"],
            "503": problemResponses["503"],
          },
        },
      },
      "/account/webhook-secret/rotate": {
        post: {
          operationId: "rotateWebhookSecret",
          summary: "A new random webhook signing secret; the previous one still signs until its grace ends",
          description:
            "For WEBHOOK_SECRET_GRACE_HOURS deliveries carry a second `v1=` signature by the previous secret and `Winnow-Secret-Rotation: previous-expires=<RFC 3339 time>`. Rotating again ends the previous secret at once. Only on a gateway that runs batch jobs.",
          responses: {
            "200": {
              description: "The new secret, and when the previous one stops signing.",
              content: {
                "application/json": {
                  example: {
                    webhook_secret: "whsec_…",
                    webhook_secret_previous_expires_at: "2026-01-02T03:04:05.000Z",
                  },
                },
              },
            },
            "401": problemResponses["401"],
            "429": problemResponses["429"],
            "503": problemResponses["503"],
          },
        },
      },
      "/mcp": {
        post: {
          operationId: "mcp",
          summary: "MCP (Model Context Protocol) for AI agents: streamable HTTP, stateless",
          description:
            "One JSON-RPC message of MCP's streamable HTTP transport per POST, answered in JSON; no session and no server-sent stream. Tools: `scrape`, `batch_submit`, `batch_status`, `account`, each with its input and output schema (`tools/list`); a list longer than a page is answered in pages behind a cursor. A tool's failure is a tool result with `isError` and the problem as its text. Each message counts against the key's requests per minute; a tool's scrape is a `POST /scrape` of this gateway with the same key.",
          requestBody: {
            required: true,
            content: {
              "application/json": { example: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} } },
            },
          },
          responses: {
            "200": { description: "The JSON-RPC answer.", content: { "application/json": {} } },
            "202": { description: "A notification or response from the client, accepted." },
            "401": problemResponses["401"],
            "429": problemResponses["429"],
            "503": problemResponses["503"],
          },
        },
      },
      ...firecrawlPaths(),
      "/healthz": {
        get: {
          operationId: "healthz",
          summary: "Liveness: the process is up",
          security: [],
          responses: { "200": { description: "Up" } },
        },
      },
      "/readyz": {
        get: {
          operationId: "readyz",
          summary: "Readiness: every backend reports SERVING",
          security: [],
          responses: { "200": { description: "Ready" }, "503": { description: "Some backend is not ready" } },
        },
      },
    },
    webhooks: {
      batchEvent: {
        post: {
          summary: "A batch job's event: a page finished, or the job completed",
          requestBody: {
            content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookEvent" } } },
          },
          responses: { "2XX": { description: "Received; anything else is retried." } },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key" },
        bearer: { type: "http", scheme: "bearer", description: "The same API key as Authorization: Bearer <key>." },
      },
      schemas: {
        ScrapeRequest: scrapeRequestSchema,
        BatchScrapeRequest: batchScrapeRequestSchema,
        BatchJob: batchJobSchema,
        BatchResult: batchResultSchema,
        WebhookEvent: webhookEventSchema,
        Problem: problemSchema,
        EvidenceResponse: evidenceResponseSchema,
        Evidence: evidenceSchema,
      },
    },
  };
}

import {
  MAX_URL_LENGTH,
  type ObjectNode,
  parseSchema,
  parseTargetUrl,
  SCHEMA_LIMITS,
  SchemaError,
  type Violation,
  WinnowError,
} from "@winnow/platform";
import type { FieldRule } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { RenderMode, type RenderOptions } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { listFields, RECORD_LINK_NAMES, recordLinkField } from "../listing/list-fields.js";
import { fromJsonSchema, isJsonSchema, toOriginalPaths } from "./json-schema-input.js";

/** A year: max_age's upper bound (entries live no longer than the cache's TTL anyway). */
const MAX_AGE_LIMIT_SECONDS = 31_536_000;

const TYPE_NAMES = ["string", "number", "integer", "boolean", "array", "object"];

/**
 * The request body's JSON Schema (2020-12), published as is in the OpenAPI
 * document and used to validate every request. It states the schema
 * language's structure; its limits (depth, field count) and precise per-path
 * messages come from parseSchema, which runs on whatever passes.
 */
export const scrapeRequestSchema = {
  $id: "https://winnow.dev/schemas/scrape-request.json",
  title: "ScrapeRequest",
  type: "object",
  required: ["url", "schema"],
  additionalProperties: false,
  properties: {
    url: {
      type: "string",
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description:
        "The absolute http(s) URL of the page to scrape. The fragment is dropped; IDN hosts become punycode; credentials are refused.",
    },
    schema: { $ref: "#/$defs/Schema" },
    task_description: {
      type: "string",
      maxLength: 20_000,
      description: "Extra instructions for the AI model: summaries, classification, translation, formats.",
    },
    options: {
      type: "object",
      additionalProperties: false,
      description: "How the page is rendered and what the answer holds; every field is optional.",
      properties: {
        render: {
          enum: ["auto", "static", "browser"],
          description: "auto: fetch statically, use the browser only when the page needs it.",
        },
        timeout_ms: {
          type: "integer",
          minimum: 1,
          maximum: 120_000,
          description: "Upper bound for rendering the page.",
        },
        wait_for: {
          type: "string",
          minLength: 1,
          maxLength: 1024,
          description: "CSS selector to wait for (needs the browser).",
        },
        screenshot: {
          type: "boolean",
          description:
            "With `evidence`: also a JPEG screenshot of the page's top, loaded in the browser, with the elements the evidence names outlined (`screenshot` in the answer, as a data: URL). Needs the browser; costs a second page load.",
        },
        evidence: {
          type: "boolean",
          description:
            'Answer `{ "data": <the schema-shaped object>, "evidence": {...} }`: for each value (by JSON pointer), where it was read, the page text, the element\'s CSS selector, a confidence and whether it is on the page.',
        },
        formats: {
          type: "array",
          items: { enum: ["json", "markdown"] },
          minItems: 1,
          uniqueItems: true,
          description:
            "What the answer holds: `json`, the schema's answer (always), and `markdown`, the page's main content as markdown (navigation, banners, footers and forms left out; links absolute), as `markdown` in the evidence envelope: needs `options.evidence`, so that the plain answer stays exactly the schema's shape. Default `[\"json\"]`.",
        },
        max_age: {
          type: "integer",
          minimum: 0,
          maximum: MAX_AGE_LIMIT_SECONDS,
          description:
            "Seconds: a page rendered for this account within them is not loaded again, and the same page with the same schema and task is answered from cache without an extraction (no model call). 0: always fresh, and nothing from this scrape is kept for later requests (unless the operator keeps every scrape: `CACHE_STORE_ALWAYS`). The default is the operator's (`CACHE_DEFAULT_MAX_AGE`, 0 unless set); `Winnow-Cache` says what came from cache and the page's age.",
        },
        pages: {
          type: "integer",
          minimum: 1,
          maximum: 100_000,
          description:
            "Listing pages to read, the first included (default 1): each next page is the one the page itself links to (rel=next, a pager's Next or next number, a page or offset step, a load-more link), on the same site. It stops at a page read before or one that adds no new record. The records of every page come once each, in page order; `Winnow-Pages` says what was read, and a list cut short (by this limit, the deadline or a failed page) has a `list-incomplete` warning. At most the operator's `MAX_LISTING_PAGES`; the schema needs a list of records.",
        },
        details: {
          type: "boolean",
          description:
            "Also read each record's own page (its `url`, `link` or `href` field, same site) and fill the record's fields the listing left null. What the listing states is kept; where the record's page disagrees the value's status is `conflict` and its evidence holds both. A record whose page fails keeps the listing's values (status `truncated`, and a `detail-failed` warning says why). The schema needs a list of records with a link field.",
        },
      },
    },
  },
  $defs: {
    Schema: {
      type: "object",
      description: `Field names mapped to types (a JSON Schema object is translated where it maps, local $ref, enum, const and format included; see /docs). At most ${SCHEMA_LIMITS.maxDepth} levels of nesting and ${SCHEMA_LIMITS.maxFields} fields in all; names of 1-${SCHEMA_LIMITS.maxNameLength} characters.`,
      minProperties: 1,
      propertyNames: {
        minLength: 1,
        maxLength: SCHEMA_LIMITS.maxNameLength,
        not: { enum: ["__proto__", "constructor", "prototype"] },
      },
      additionalProperties: { $ref: "#/$defs/FieldType" },
    },
    FieldType: {
      description: "A type name, a nested object schema, or a one-item array of either (an array of those).",
      oneOf: [
        { enum: TYPE_NAMES },
        { $ref: "#/$defs/Schema" },
        {
          type: "array",
          minItems: 1,
          maxItems: 1,
          items: { oneOf: [{ enum: TYPE_NAMES }, { $ref: "#/$defs/Schema" }] },
        },
      ],
    },
  },
};

const RENDER_MODES = {
  auto: RenderMode.RENDER_MODE_AUTO,
  static: RenderMode.RENDER_MODE_STATIC,
  browser: RenderMode.RENDER_MODE_BROWSER,
};

interface ScrapeOptions {
  render?: keyof typeof RENDER_MODES;
  timeout_ms?: number;
  wait_for?: string;
  evidence?: boolean;
  screenshot?: boolean;
  formats?: ("json" | "markdown")[];
  max_age?: number;
  pages?: number;
  details?: boolean;
}

export interface ScrapeRequest {
  url: string;
  /** The schema as sent (checked here, parsed by the extractor), re-serialized for it. */
  schemaJson: string;
  /** A translated JSON Schema's field descriptions, by pointer in the schema (ExtractRequest.field_hints). */
  fieldHints: Record<string, string>;
  /** A translated JSON Schema's enum, const and format, by pointer in the schema (ExtractRequest.field_rules). */
  fieldRules: Record<string, FieldRule>;
  taskDescription: string;
  /** What the renderer is asked for; zero values mean "the renderer's default". */
  renderOptions: RenderOptions;
  /** Answer `{ data, evidence }` rather than the data alone. */
  evidence: boolean;
  /** With evidence: a screenshot with the evidence's elements outlined. */
  screenshot: boolean;
  /** With evidence: the page's main content as markdown in the envelope. */
  markdown: boolean;
  /** How old a cached page (and its extraction) may be, in seconds; undefined: the operator's default. */
  maxAgeSeconds: number | undefined;
  /** Listing pages to read (options.pages, 1 by default) and whether each record's own page fills it (options.details). */
  listing: { pages: number; details: boolean };
}

/** What this caller of parseScrapeRequest can answer of options.pages and options.details; undefined: neither. */
export interface ListingLimits {
  /** The operator's MAX_LISTING_PAGES. */
  maxPages: number;
}

const validateBody = new Ajv2020({ allErrors: true }).compile(scrapeRequestSchema);

/**
 * Validates a parsed body; throws a WinnowError that says what is wrong and
 * where: "invalid-request" when anything outside the schema is wrong (listing
 * the schema's problems too), else "invalid-schema".
 */
export function parseScrapeRequest(sent: unknown, listingLimits?: ListingLimits): ScrapeRequest {
  rejectDeepNesting(sent);
  // A JSON Schema is read as its schema-language twin from here on; errors found in the twin name the original.
  const translated = isObject(sent) && isJsonSchema(sent.schema) ? fromJsonSchema(sent.schema) : undefined;
  const body = translated ? { ...(sent as object), schema: translated.twin } : sent;
  const errors = validateBody(body) ? [] : (validateBody.errors ?? []);
  const inSchema = (e: ErrorObject) => isUnder(e.instancePath, "/schema") && e.keyword !== "required";
  const envelope = errors.filter((e) => !inSchema(e)).map(describeAjvError);
  const fields = isObject(body) ? body : {};
  let tree: ObjectNode | undefined;
  let schemaViolations: Violation[] = [];
  if ("schema" in fields) {
    try {
      tree = parseSchema(fields.schema);
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      schemaViolations = error.violations;
    }
  }
  // parseSchema names each bad node better than oneOf can; Ajv's word stands only if the two disagree.
  if (schemaViolations.length === 0) schemaViolations = errors.filter(inSchema).map(describeAjvError);
  if (translated) schemaViolations = toOriginalPaths(schemaViolations, translated.origins);
  if (envelope.length > 0) throw invalid("invalid-request", [...envelope, ...schemaViolations]);
  if (schemaViolations.length > 0 || !tree) throw invalid("invalid-schema", schemaViolations);
  const {
    url,
    schema,
    task_description,
    options = {},
  } = body as {
    url: string;
    schema: unknown;
    task_description?: string;
    options?: ScrapeOptions;
  };
  if (options.screenshot && !options.evidence) {
    throw new WinnowError(
      "evidence-unavailable",
      "options.screenshot needs options.evidence: only the evidence envelope has room for the image",
      {
        violations: [{ path: "/options/screenshot", description: "needs options.evidence" }],
      },
    );
  }
  const formats = options.formats ?? ["json"];
  if (!formats.includes("json")) {
    throw invalid("invalid-request", [
      {
        path: "/options/formats",
        description: 'must hold "json": the schema\'s answer is always given (markdown alone: POST /v2/scrape)',
      },
    ]);
  }
  const markdown = formats.includes("markdown");
  if (markdown && !options.evidence) {
    throw new WinnowError(
      "evidence-unavailable",
      'options.formats "markdown" needs options.evidence: the plain answer is the schema\'s shape alone',
      { violations: [{ path: "/options/formats", description: "markdown needs options.evidence" }] },
    );
  }
  const listing = { pages: options.pages ?? 1, details: options.details ?? false };
  checkListing(listing, tree, listingLimits);
  return {
    // Refused here what is never fetchable, before any backend is asked; the renderer checks again.
    url: parseTargetUrl(url).href,
    schemaJson: JSON.stringify(schema),
    fieldHints: translated?.hints ?? {},
    fieldRules: translated?.rules ?? {},
    taskDescription: task_description ?? "",
    renderOptions: {
      mode: options.render ? RENDER_MODES[options.render] : RenderMode.RENDER_MODE_UNSPECIFIED,
      timeoutMs: options.timeout_ms ?? 0,
      waitFor: options.wait_for ?? "",
      screenshot: false,
      outline: [],
    },
    evidence: options.evidence ?? false,
    screenshot: options.screenshot ?? false,
    markdown,
    maxAgeSeconds: options.max_age,
    listing,
  };
}

/** options.pages within the operator's cap, and a list of records in the schema for pages and details to read. */
function checkListing(listing: ScrapeRequest["listing"], tree: ObjectNode, limits: ListingLimits | undefined): void {
  const refuse = (path: string, description: string) =>
    new WinnowError("invalid-request", `${path}: ${description}`, { violations: [{ path, description }] });
  const multiPage = listing.pages > 1 || listing.details;
  if (multiPage && !limits)
    throw refuse(
      listing.details ? "/options/details" : "/options/pages",
      "whole listings are read by POST /scrape and POST /batch/scrape only",
    );
  if (limits && listing.pages > limits.maxPages)
    throw refuse("/options/pages", `at most ${limits.maxPages} listing pages (the operator's MAX_LISTING_PAGES)`);
  if (!multiPage) return;
  const lists = listFields(tree);
  if (lists.length === 0)
    throw refuse(
      listing.details ? "/options/details" : "/options/pages",
      'needs a list of records in the schema (a field like "products": [{...}])',
    );
  if (listing.details && !lists.some((field) => recordLinkField(field) !== undefined))
    throw refuse(
      "/options/details",
      `needs a link field in the records (one of ${RECORD_LINK_NAMES.join(", ")}) to find each record's page`,
    );
}

/** Far deeper than any valid request (a JSON Schema takes up to five levels for each of the language's); validators recurse, so deeper input must stop here, not overflow the stack. */
const MAX_BODY_DEPTH = 64;

/** Walks the body without recursion and refuses it at the first node nested deeper than MAX_BODY_DEPTH. */
function rejectDeepNesting(body: unknown): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: body, path: "", depth: 0 }];
  for (let item = pending.pop(); item; item = pending.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth > MAX_BODY_DEPTH) {
      const type = isUnder(item.path, "/schema") ? "invalid-schema" : "invalid-request";
      throw invalid(type, [
        { path: item.path, description: `nested too deeply: at most ${SCHEMA_LIMITS.maxDepth} levels in a schema` },
      ]);
    }
    for (const [key, value] of Object.entries(item.value))
      pending.push({ value, path: `${item.path}/${key}`, depth: item.depth + 1 });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(type: "invalid-request" | "invalid-schema", violations: Violation[]): WinnowError {
  return new WinnowError(type, violations.map((v) => `${v.path}: ${v.description}`).join("; "), { violations });
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

function describeAjvError(error: ErrorObject): Violation {
  if (error.keyword === "required") {
    return { path: `${error.instancePath}/${String(error.params.missingProperty)}`, description: "is required" };
  }
  if (error.keyword === "additionalProperties") {
    return {
      path: `${error.instancePath}/${String(error.params.additionalProperty)}`,
      description: "is not a known field",
    };
  }
  return { path: error.instancePath || "/", description: error.message ?? "is invalid" };
}

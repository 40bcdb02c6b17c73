import type { Evidence, FieldStatus, ScrapeWarning } from "./evidence.js";
import type { AnySchema, ResultOf } from "./schema.js";

/** Which engine filled the schema: the model, the builtin engine, or the site's learned template for every field. */
export type Engine = "llm" | "builtin" | "template";

/**
 * The answer to a scrape: `data` in the schema's shape; `status`, each field's status by JSON pointer ("/price", and
 * "/ingredients/0" for a value inside a field whose values differ; `describeStatus` says what each means); `warnings`,
 * the extractor's. Without `evidence` they come from the response's headers, which list at most 32 members each:
 * `omitted` counts those left out (then the fields not listed are left out of `status` too; ask `evidence` for all).
 */
export interface ScrapeResponse<S extends AnySchema> {
  data: ResultOf<S>;
  status: Record<string, FieldStatus>;
  warnings: ScrapeWarning[];
  omitted: number;
  /** The request's id (x-request-id): in the gateway's logs, and worth quoting in a report. */
  requestId?: string;
  engine?: Engine;
  /** How the page was loaded. */
  renderPath?: "static" | "browser";
  /** Model tokens sent and received; both 0 when no model was asked. */
  tokens?: { input: number; output: number };
  /** With `options.pages` or `options.details`: the pages read (Winnow-Pages). */
  pages?: PagesRead;
}

/**
 * The pages a whole listing read: listing pages, records' own pages, pages of either kind that failed, and pages a
 * model read (the rest were answered by learned templates or the builtin engine alone; 0 from a server that does not
 * say).
 */
export interface PagesRead {
  listing: number;
  details: number;
  failed: number;
  model: number;
}

/** The key's account, as `GET /account` answers. */
export interface Account {
  accountId: string;
  keyId: string;
  limits: { plan: string; requestsPerMinute: number; maxConcurrentScrapes: number };
  /** The secret that signs the account's webhook deliveries (verifyWebhook). */
  webhookSecret: string;
  /** While a replaced secret still signs deliveries too: when that ends (ISO 8601). */
  webhookSecretPreviousExpiresAt?: string;
}

/** The answer with `options.evidence`: each value's evidence by JSON pointer too, and the screenshot when asked. */
export interface ScrapeWithEvidence<S extends AnySchema> extends ScrapeResponse<S> {
  evidence: Record<string, Evidence>;
  /** With `options.screenshot`: a JPEG of the page's top, the evidence's elements outlined, as a data: URL. */
  screenshot?: string;
  /** With `options.formats` holding `"markdown"`: the page's main content as markdown, links absolute. */
  markdown?: string;
}

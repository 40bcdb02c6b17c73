import { MAX_URL_LENGTH, parseTargetUrl, WinnowError } from "@winnow/platform";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  type ListingLimits,
  parseScrapeRequest,
  type ScrapeRequest,
  scrapeRequestSchema,
} from "../scrape/scrape-request.js";

const WEBHOOK_EVENTS = ["page", "completed"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * The body of POST /batch/scrape, published in the OpenAPI document: the
 * fields of POST /scrape with `urls` for `url`, and an optional webhook.
 * Each URL is checked on its own (a bad one fails alone), so `urls` takes any items.
 */
export const batchScrapeRequestSchema = {
  $id: "https://winnow.dev/schemas/batch-scrape-request.json",
  title: "BatchScrapeRequest",
  type: "object",
  required: ["urls", "schema"],
  additionalProperties: false,
  properties: {
    urls: {
      type: "array",
      minItems: 1,
      description: `The pages to scrape, each an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters; one that is not is reported failed in the results, the others run. At most BATCH_MAX_URLS items.`,
      items: { type: "string" },
    },
    schema: scrapeRequestSchema.properties.schema,
    task_description: scrapeRequestSchema.properties.task_description,
    options: scrapeRequestSchema.properties.options,
    webhook: {
      type: "object",
      required: ["url"],
      additionalProperties: false,
      description:
        "Where to POST the job's events, signed with the account's webhook secret (see the webhooks section of the docs).",
      properties: {
        url: { type: "string", minLength: 1, maxLength: MAX_URL_LENGTH, description: "A public http(s) URL." },
        events: {
          type: "array",
          uniqueItems: true,
          items: { enum: [...WEBHOOK_EVENTS] },
          description: "Which events to send; both by default.",
        },
      },
    },
  },
  $defs: scrapeRequestSchema.$defs,
};

/** One of the job's URLs: the page to scrape, or why it is refused. */
type BatchItem = { url: string; problem?: undefined } | { url: string; problem: WinnowError };

export interface BatchRequest {
  /** What every page is scraped with; its url is each item's. */
  page: Omit<ScrapeRequest, "url">;
  items: BatchItem[];
  webhook: { url: URL; events: WebhookEvent[] } | undefined;
}

const validateEnvelope = new Ajv2020({ allErrors: true }).compile({
  type: "object",
  required: ["urls"],
  properties: { urls: batchScrapeRequestSchema.properties.urls, webhook: batchScrapeRequestSchema.properties.webhook },
});

/**
 * Validates a batch body by POST /scrape's rules: the schema, task and
 * options as for one page (a whole listing per URL within `listing`); each URL on its own; at most `maxUrls` of them.
 */
export function parseBatchRequest(body: unknown, maxUrls: number, listing: ListingLimits): BatchRequest {
  if (!validateEnvelope(body)) {
    const violations = (validateEnvelope.errors ?? []).map((error) => ({
      path: error.keyword === "required" ? `/${String(error.params.missingProperty)}` : error.instancePath || "/",
      description: error.keyword === "required" ? "is required" : (error.message ?? "is invalid"),
    }));
    throw new WinnowError("invalid-request", violations.map((v) => `${v.path}: ${v.description}`).join("; "), {
      violations,
    });
  }
  const { urls, webhook, ...rest } = body as { urls: string[]; webhook?: { url: string; events?: WebhookEvent[] } };
  if (urls.length > maxUrls) {
    throw new WinnowError("invalid-request", `urls: at most ${maxUrls} URLs per job`, {
      violations: [{ path: "/urls", description: `must have at most ${maxUrls} items` }],
    });
  }
  // The shared fields are checked exactly as POST /scrape checks them, with a stand-in address.
  const { url: _standIn, ...page } = parseScrapeRequest({ ...rest, url: "https://batch.invalid/" }, listing);
  const items = urls.map((raw, index): BatchItem => {
    try {
      return { url: parseTargetUrl(raw, `/urls/${index}`).href };
    } catch (error) {
      if (!(error instanceof WinnowError)) throw error;
      return { url: raw, problem: error };
    }
  });
  return {
    page,
    items,
    webhook: webhook && {
      url: parseTargetUrl(webhook.url, "/webhook/url"),
      events: webhook.events ?? [...WEBHOOK_EVENTS],
    },
  };
}

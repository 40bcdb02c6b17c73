import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { BatchJob, BatchResult, WinnowBatch } from "../batch.js";
import type { Winnow } from "../client.js";
import { WinnowError } from "../errors.js";
import type { Schema } from "../schema.js";
import { type Answer, AnswerPages, CursorError, type ListPaging } from "./answer-pages.js";

/** The clients the tools call, made on first use (so that a missing key is a tool error, not a server that won't start). */
export interface WinnowApi {
  winnow: Winnow;
  batch: WinnowBatch;
}

export interface McpServerOptions {
  api: () => WinnowApi;
  /** Where later pages of long lists wait for their cursor. */
  pages: AnswerPages;
  /** Whose answers these are: a cursor is read only in the scope it was made in (the gateway: the account). */
  scope?: string;
}

/** A page holds 100 items of a list or 64 KB of them; a reader keeps 16 answers for 15 minutes, 64 MB in all. */
export function defaultAnswerPages(): AnswerPages {
  return new AnswerPages(
    { items: 100, bytes: 64 * 1024 },
    { ttlMs: 15 * 60_000, answersPerScope: 16, totalBytes: 64 * 1024 * 1024 },
  );
}

/** Results of a batch job in one batch_status answer, at most: each may carry lists of a page each. */
const BATCH_RESULTS_PER_PAGE = 10;

const warning = z.object({ code: z.string(), path: z.string().optional(), message: z.string().optional() });
const byPointer = z.record(z.string(), z.string()).describe("Each value's status by JSON pointer (found, absent, ...)");
const listPaging = z.object({
  pointer: z.string().describe("The list's JSON pointer in data"),
  total: z.number().int(),
  returned: z.number().int(),
  next_cursor: z.string().nullable().describe("Pass as scrape's cursor for the next page; null when nothing is left"),
});
const schemaInput = z
  .record(z.string(), z.unknown())
  .describe(
    'Field name → type: "string", "number", "integer", "boolean", a nested object, or [type] for a list, e.g. ' +
      '{"title": "string", "products": [{"name": "string", "price_usd": "number"}]}; a JSON Schema object works too',
  );

/** How a page is read, and how much of a listing: scrape's options and each batch page's. */
const renderOption = z.enum(["auto", "static", "browser"]).optional();
const pagesOption = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe(
    "Listing pages to read, the first included (default 1), following the page's own next link on the same " +
      "site; the schema needs a list of records",
  );
const detailsOption = z
  .boolean()
  .optional()
  .describe("Also read each record's own page (its url, link or href field) for the fields the listing left null");

/** The Winnow tools for an agent: scrape, batch_submit, batch_status, account. */
export function createWinnowMcpServer({ api, pages, scope = "" }: McpServerOptions): McpServer {
  const server = new McpServer({ name: "winnow", version: "0.2.0" });

  server.registerTool(
    "scrape",
    {
      title: "Scrape a page into a schema",
      description:
        "Reads the page at url and answers data in the schema's shape, each value's status (found, derived, " +
        "unverified, absent, not-found, conflict, truncated, needs-model) and the extractor's warnings. A list " +
        `longer than a page (${pages.pages.items} items or ${pages.pages.bytes / 1024} KB) comes as its first ` +
        "page with a cursor in lists[]: call scrape again with only that cursor for the next page. With pages or " +
        "details it reads a whole listing: its next pages, and each record's own page.",
      inputSchema: {
        url: z.string().url().optional().describe("The page; required unless cursor is given"),
        schema: schemaInput.optional(),
        task_description: z.string().optional().describe("Extra instructions for the model"),
        evidence: z.boolean().optional().describe("Add where each value was read, by JSON pointer"),
        formats: z
          .array(z.enum(["json", "markdown"]))
          .min(1)
          .optional()
          .describe('["json", "markdown"]: also the page\'s main content as markdown (links absolute)'),
        render: renderOption,
        pages: pagesOption,
        details: detailsOption,
        cursor: z.string().optional().describe("A next_cursor from an earlier answer: its list's next page"),
      },
      outputSchema: {
        data: z.unknown().optional().describe("The page's data in the schema's shape; long lists cut to a page"),
        page: z
          .object({
            pointer: z.string(),
            offset: z.number().int(),
            total: z.number().int(),
            items: z.array(z.unknown()),
            next_cursor: z.string().nullable(),
          })
          .optional()
          .describe("With cursor: the list's page, from offset"),
        status: byPointer,
        warnings: z.array(warning),
        evidence: z.record(z.string(), z.unknown()).optional(),
        markdown: z
          .string()
          .optional()
          .describe(
            "With formats holding \"markdown\": the page's main content; past a page's size, its first part, the rest " +
              'by the cursor of lists[] entry "#markdown" (its items are the lines)',
          ),
        pages_read: z
          .object({
            listing: z.number().int(),
            details: z.number().int(),
            failed: z.number().int(),
            model: z.number().int(),
          })
          .optional()
          .describe(
            "With pages or details: the listing pages and records' pages read, those that failed, and those a model read",
          ),
        omitted: z.number().int().describe("Statuses and warnings left out (ask evidence for all)"),
        lists: z.array(listPaging).describe("Lists cut into pages"),
        engine: z.string().optional(),
        request_id: z.string().optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      answer(async () => {
        if (input.cursor !== undefined) {
          const { items, pointer, offset, total, next_cursor, ...about } = pages.read(scope, input.cursor);
          return { page: { pointer, offset, total, items, next_cursor }, ...about, omitted: 0, lists: [] };
        }
        if (input.url === undefined || input.schema === undefined)
          throw new WinnowError("scrape needs url and schema (or a cursor).", {
            status: 400,
            type: "invalid-request",
            retryable: false,
          });
        // The API answers markdown only in the evidence envelope (its plain answer is the schema's shape alone); the
        // tool's answer has room for it either way, so markdown asks for the envelope and keeps evidence out unless asked.
        const markdown = input.formats?.includes("markdown") ?? false;
        const scraped = await api().winnow.scrape({
          url: input.url,
          schema: input.schema as Schema,
          ...(input.task_description !== undefined && { taskDescription: input.task_description }),
          options: {
            ...((input.evidence || markdown) && { evidence: true }),
            ...(markdown && { formats: ["json", "markdown"] }),
            ...(input.render && { render: input.render }),
            ...(input.pages !== undefined && { pages: input.pages }),
            ...(input.details !== undefined && { details: input.details }),
          },
        });
        const split = pages.split(
          scope,
          {
            data: scraped.data,
            status: scraped.status,
            warnings: scraped.warnings,
            ...(input.evidence && "evidence" in scraped && { evidence: scraped.evidence as Record<string, unknown> }),
          },
          "markdown" in scraped ? scraped.markdown : undefined,
        );
        return {
          ...split.answer,
          ...(split.markdown !== undefined && { markdown: split.markdown }),
          ...(scraped.pages && { pages_read: scraped.pages }),
          omitted: scraped.omitted,
          lists: split.lists,
          ...(scraped.engine && { engine: scraped.engine }),
          ...(scraped.requestId && { request_id: scraped.requestId }),
        };
      }),
  );

  const job = {
    id: z.string(),
    status: z.string().describe("running, completed or cancelled"),
    total: z.number().int(),
    counts: z.object({ queued: z.number(), done: z.number(), failed: z.number(), cancelled: z.number() }),
    progress: z
      .object({ pages_read: z.number().int(), records: z.number().int() })
      .describe("Pages read so far (a whole listing's pages and records' pages each count) and records answered"),
    created_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  };

  server.registerTool(
    "batch_submit",
    {
      title: "Submit a batch of pages",
      description:
        "Queues many URLs for one schema; answers the job at once. Read its progress and results with batch_status.",
      inputSchema: {
        urls: z.array(z.string().url()).min(1),
        schema: schemaInput,
        task_description: z.string().optional(),
        evidence: z.boolean().optional(),
        render: renderOption,
        pages: pagesOption,
        details: detailsOption,
      },
      outputSchema: job,
      annotations: { openWorldHint: true },
    },
    (input) =>
      answer(async () =>
        jobOf(
          await api().batch.submit({
            urls: input.urls,
            schema: input.schema as Schema,
            ...(input.task_description !== undefined && { taskDescription: input.task_description }),
            options: {
              ...(input.evidence && { evidence: true }),
              ...(input.render && { render: input.render }),
              ...(input.pages !== undefined && { pages: input.pages }),
              ...(input.details !== undefined && { details: input.details }),
            },
          }),
        ),
      ),
  );

  server.registerTool(
    "batch_status",
    {
      title: "A batch job's state and results",
      description:
        `A batch job's state and a page of its results (at most ${BATCH_RESULTS_PER_PAGE}, in URL order, from ` +
        "cursor): each done page's data, field_status and warnings, a failed page's problem. Lists inside a result " +
        "longer than a page come with a cursor for scrape.",
      inputSchema: {
        id: z.string().min(1),
        cursor: z.string().optional().describe("next_cursor of the previous batch_status answer"),
        limit: z.number().int().min(1).max(BATCH_RESULTS_PER_PAGE).optional(),
      },
      outputSchema: {
        ...job,
        // As GET /batch/scrape/{id} lists them, what answered each page too (engine, render_path, tokens_in, ...).
        results: z.array(
          z.looseObject({
            index: z.number().int(),
            url: z.string(),
            status: z.string(),
            data: z.unknown().optional(),
            field_status: byPointer.optional(),
            warnings: z.array(warning).optional(),
            evidence: z.record(z.string(), z.unknown()).optional(),
            problem: z.record(z.string(), z.unknown()).optional(),
            lists: z.array(listPaging).optional(),
          }),
        ),
        next_cursor: z.string().nullable(),
      },
      annotations: { readOnlyHint: true },
    },
    (input) =>
      answer(async () => {
        const { job, results, next_cursor } = await api().batch.page(
          input.id,
          input.cursor ?? "0",
          input.limit ?? BATCH_RESULTS_PER_PAGE,
        );
        return { ...jobOf(job), results: results.map((result) => pagedResult(pages, scope, result)), next_cursor };
      }),
  );

  server.registerTool(
    "account",
    {
      title: "The key's account and limits",
      description: "The API key's account, and its plan's requests per minute and concurrent scrapes.",
      outputSchema: {
        account_id: z.string(),
        key_id: z.string(),
        plan: z.string(),
        requests_per_minute: z.number(),
        max_concurrent_scrapes: z.number(),
      },
      annotations: { readOnlyHint: true },
    },
    () =>
      answer(async () => {
        // The webhook secret stays out: an agent's context is no place for it.
        const { accountId, keyId, limits } = await api().winnow.account();
        return {
          account_id: accountId,
          key_id: keyId,
          plan: limits.plan,
          requests_per_minute: limits.requestsPerMinute,
          max_concurrent_scrapes: limits.maxConcurrentScrapes,
        };
      }),
  );
  return server;
}

/** The job's state as the tools' output schema states it (the API's answer may carry more). */
function jobOf({
  id,
  status,
  total,
  counts,
  progress,
  created_at,
  finished_at,
  expires_at,
}: BatchJob): Record<string, unknown> {
  return { id, status, total, counts, progress, created_at, finished_at, expires_at };
}

/** A batch result with its long lists cut to a page, as a scrape's. */
function pagedResult(pages: AnswerPages, scope: string, result: BatchResult): Record<string, unknown> {
  if (result.data === undefined) return { ...result };
  const split = pages.split(scope, {
    data: result.data,
    status: result.field_status ?? {},
    warnings: result.warnings ?? [],
    ...(result.evidence && { evidence: result.evidence }),
  });
  const { data, status, warnings, evidence }: Answer = split.answer;
  return {
    ...result,
    data,
    field_status: status,
    warnings,
    ...(evidence && { evidence }),
    ...(split.lists.length > 0 && { lists: split.lists as ListPaging[] }),
  };
}

/**
 * The tool's answer as structured content (and as JSON text, for hosts that read only text); a failure as a tool
 * error that names the problem type and detail, so the agent can act on it.
 */
async function answer(run: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    const structured = await run();
    return { structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
  } catch (error) {
    const problem = problemOf(error);
    return { isError: true, content: [{ type: "text", text: JSON.stringify(problem) }] };
  }
}

function problemOf(error: unknown): Record<string, unknown> {
  if (error instanceof CursorError) return { type: "invalid-cursor", detail: error.message };
  if (error instanceof WinnowError)
    return {
      type: error.type,
      status: error.status,
      detail: error.problem?.detail ?? error.message,
      retryable: error.retryable,
      ...(error.problem?.errors && { errors: error.problem.errors }),
      ...(error.requestId && { request_id: error.requestId }),
    };
  return { type: error instanceof TypeError ? "invalid-request" : "internal", detail: (error as Error).message };
}

/**
 * Winnow's MCP tools through the SDK's own client, over both transports against one stack: the winnow-mcp bin over
 * stdio (calling the gateway with the Node client) and the gateway's /mcp over streamable HTTP. The scrape tool
 * answers what POST /scrape answers, whole listings (pages, details) and markdown included; a long list comes in
 * bounded pages, every item once; a bad key is an error the agent can read, not a crash.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Winnow } from "@winnow/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { catalogueGrid, LIST_SCHEMA } from "../support/list-pages.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { PAGES } from "./pages.js";

const BIN = path.join(REPO_ROOT, "clients/node/dist/esm/mcp/bin.js");
/** The id the HTTP client's messages carry: a tool's own call to the API carries it on. */
const HTTP_REQUEST_ID = "mcp-e2e";
const PRODUCT_SCHEMA = { name: "string", brand: "string", price_usd: "number", warranty: "string" } as const;

const itemPage = (name: string, sku: string) =>
  `<!doctype html><html><head><title>${name}</title></head><body><main><h1>${name}</h1><dl><dt>SKU</dt><dd>${sku}</dd></dl></main></body></html>`;

let run: RunningStack;
beforeAll(async () => {
  run = await launchStack({
    "/product": PAGES["/product"]!,
    "/catalogue": { body: catalogueGrid(500) },
    // A listing of two pages, 160 records in all.
    "/grid/1": { body: catalogueGrid(80, { next: "/grid/2" }) },
    "/grid/2": { body: catalogueGrid(80, { from: 80 }) },
    // A listing whose records' own pages state their SKU.
    "/shelf": { body: catalogueGrid(2, { from: 900 }) },
    "/p/900": { body: itemPage("Shelf Shelf model 900", "SKU-900") },
    "/p/901": { body: itemPage("Rug Clock model 901", "SKU-901") },
  });
});
afterAll(async () => {
  await run?.stop();
});

/** The SDK's client over stdio (the bin, as an MCP host starts it) or HTTP (/mcp, the key as Bearer). */
async function connect(transport: "stdio" | "http", apiKey: string): Promise<Client> {
  const client = new Client({ name: "winnow-test", version: "1.0.0" });
  await client.connect(
    transport === "stdio"
      ? new StdioClientTransport({
          command: process.execPath,
          args: [BIN],
          env: { WINNOW_API_KEY: apiKey, WINNOW_BASE_URL: run.stack.gatewayUrl },
          stderr: "pipe",
        })
      : new StreamableHTTPClientTransport(new URL(`${run.stack.gatewayUrl}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${apiKey}`, "x-request-id": HTTP_REQUEST_ID } },
        }),
  );
  return client;
}

const structured = (result: unknown) => (result as CallToolResult).structuredContent as Record<string, unknown>;

describe.each(["stdio", "http"] as const)("the MCP tools over %s", (transport) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(transport, run.stack.apiKey);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lists the four tools, each with an input and an output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["account", "batch_status", "batch_submit", "scrape"]);
    for (const tool of tools) expect(tool.outputSchema?.type).toBe("object");
  });

  it("answers a scrape with the values and statuses POST /scrape gives", async () => {
    const url = `${run.site.origin}/product`;
    const direct = await new Winnow({ apiKey: run.stack.apiKey, baseUrl: run.stack.gatewayUrl }).scrape({
      url,
      schema: PRODUCT_SCHEMA,
    });
    const result = await client.callTool({ name: "scrape", arguments: { url, schema: PRODUCT_SCHEMA } });
    expect(result.isError).toBeFalsy();
    const answer = structured(result);
    expect(answer.data).toEqual(direct.data);
    expect(answer.status).toEqual(direct.status);
    expect(answer.warnings).toEqual(direct.warnings);
    expect(answer.lists).toEqual([]);
    if (transport === "http") expect(answer.request_id).toBe(HTTP_REQUEST_ID);
    expect(direct.data.price_usd).toBe(129.99);
  });

  it("answers a 500-record list in bounded pages, each item once, and a cursor it does not know as a tool error", async () => {
    const url = `${run.site.origin}/catalogue`;
    const first = structured(await client.callTool({ name: "scrape", arguments: { url, schema: LIST_SCHEMA } }));
    const [list] = first.lists as { pointer: string; total: number; returned: number; next_cursor: string | null }[];
    expect(list).toMatchObject({ pointer: "/products", total: 500, returned: 100 });
    const items = [...((first.data as { products: unknown[] }).products ?? [])];
    let cursor = list!.next_cursor;
    while (cursor !== null) {
      const { page } = structured(await client.callTool({ name: "scrape", arguments: { cursor } })) as {
        page: { offset: number; items: unknown[]; next_cursor: string | null };
      };
      expect(page.offset).toBe(items.length);
      expect(page.items.length).toBeLessThanOrEqual(100);
      items.push(...page.items);
      cursor = page.next_cursor;
    }
    expect(items).toHaveLength(500);
    expect(items[499]).toEqual({ name: "Desk Lamp model 499", price_usd: 500.99, rating: 2.9 });

    const unknown = await client.callTool({ name: "scrape", arguments: { cursor: "nope.0.1" } });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse((unknown.content as { text: string }[])[0]!.text)).toMatchObject({ type: "invalid-cursor" });
  });

  it("reads a whole listing with pages, still in bounded pages, and records' own pages with details", async () => {
    const url = `${run.site.origin}/grid/1`;
    const first = structured(
      await client.callTool({ name: "scrape", arguments: { url, schema: LIST_SCHEMA, pages: 2 } }),
    );
    expect(first.pages_read).toEqual({ listing: 2, details: 0, failed: 0, model: 0 });
    const [list] = first.lists as { pointer: string; total: number; returned: number; next_cursor: string }[];
    expect(list).toMatchObject({ pointer: "/products", total: 160, returned: 100 });
    const { page } = structured(
      await client.callTool({ name: "scrape", arguments: { cursor: list!.next_cursor } }),
    ) as {
      page: { offset: number; items: { name: string }[]; next_cursor: string | null };
    };
    expect(page).toMatchObject({ offset: 100, next_cursor: null });
    expect(page.items.at(-1)?.name).toBe("Clock Rug model 159");

    const shelf = structured(
      await client.callTool({
        name: "scrape",
        arguments: {
          url: `${run.site.origin}/shelf`,
          schema: { products: [{ name: "string", sku: "string", url: "string" }] },
          details: true,
        },
      }),
    );
    expect(shelf.pages_read).toEqual({ listing: 1, details: 2, failed: 0, model: 0 });
    expect((shelf.data as { products: { sku: string }[] }).products.map((p) => p.sku)).toEqual(["SKU-900", "SKU-901"]);
  });

  it("adds the page's markdown with formats, without evidence unless asked", async () => {
    const url = `${run.site.origin}/product`;
    const answer = structured(
      await client.callTool({
        name: "scrape",
        arguments: { url, schema: PRODUCT_SCHEMA, formats: ["json", "markdown"] },
      }),
    );
    expect(answer.markdown).toContain("Ridgeline Trail Shoe");
    expect(answer).not.toHaveProperty("evidence");
    expect((answer.data as { price_usd: number }).price_usd).toBe(129.99);
  });

  it("answers a request the API refuses with a tool error carrying the problem's type and detail", async () => {
    const url = `${run.site.origin}/product`;
    const result = await client.callTool({ name: "scrape", arguments: { url, schema: { price: "money" } } });
    expect(result.isError).toBe(true);
    const problem = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(problem).toMatchObject({ type: "invalid-schema", status: 400, detail: expect.any(String) });
  });

  it("answers the key's account and limits", async () => {
    const answer = structured(await client.callTool({ name: "account", arguments: {} }));
    expect(answer).toMatchObject({ plan: expect.any(String), requests_per_minute: expect.any(Number) });
    expect(answer).not.toHaveProperty("webhook_secret");
  });

  it("submits a batch and reads its state and results, whole listings and their progress included", async () => {
    const urls = [`${run.site.origin}/product`];
    const job = structured(
      await client.callTool({ name: "batch_submit", arguments: { urls, schema: PRODUCT_SCHEMA } }),
    ) as { id: string; status: string };
    expect(job.status).toBe("running");
    const finished = async (id: string) => {
      for (;;) {
        const state = structured(await client.callTool({ name: "batch_status", arguments: { id } }));
        if (state.status !== "running") return state;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const state = await finished(job.id);
    expect(state).toMatchObject({ status: "completed", next_cursor: null, progress: { pages_read: 1 } });
    expect((state.results as { data: unknown }[])[0]!.data).toMatchObject({ price_usd: 129.99 });

    const listing = structured(
      await client.callTool({
        name: "batch_submit",
        arguments: {
          urls: [`${run.site.origin}/shelf`],
          schema: { products: [{ name: "string", sku: "string", url: "string" }] },
          details: true,
        },
      }),
    ) as { id: string; progress: object };
    expect(listing.progress).toEqual({ pages_read: 0, records: 0 });
    const read = await finished(listing.id);
    expect(read.progress).toEqual({ pages_read: 3, records: 2 });
    const [result] = read.results as { data: { products: { sku: string }[] }; pages: object }[];
    expect(result!.data.products.map((p) => p.sku)).toEqual(["SKU-900", "SKU-901"]);
    expect(result!.pages).toEqual({ listing: 1, details: 2, failed: 0, model: 0 });
  });
});

describe("a bad key", () => {
  it("is a tool error naming the problem over stdio, and the server goes on", async () => {
    const client = await connect("stdio", "wk_not_a_key");
    try {
      const result = await client.callTool({ name: "account", arguments: {} });
      expect(result.isError).toBe(true);
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({
        type: "unauthorized",
        status: 401,
      });
      expect((await client.listTools()).tools).toHaveLength(4);
    } finally {
      await client.close();
    }
  });

  it("is refused with 401 over HTTP, as MCP's authorization asks, and the gateway goes on", async () => {
    await expect(connect("http", "wk_not_a_key")).rejects.toThrow(/401/);
    const good = await connect("http", run.stack.apiKey);
    expect((await good.listTools()).tools).toHaveLength(4);
    await good.close();
  });
});

/**
 * Each value's status through the whole stack: in the Winnow-Field-Status
 * header (the fields that are not "found"), in Winnow-Warnings, and beside
 * each value in the evidence envelope; the body keeps the schema's shape.
 * Without a model, a field the task description names answers null with
 * "needs-model"; with one (our scripted server), a page read in parts gives
 * "conflict" and "truncated". Both clients (Node.js, and Python in a child
 * process) read every status, plain and with evidence.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Winnow } from "@winnow/client";
import { parseList, Token } from "structured-headers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatRequestBody, type FakeLlm, startFakeLlm } from "../support/fake-llm.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

/** A header's list as pointer (or code) to its parameters. */
function listed(header: string | null): Record<string, Record<string, string>> {
  return Object.fromEntries(
    parseList(header ?? "").map(([value, params]) => [
      String(value),
      Object.fromEntries(
        [...params].map(([key, param]) => [key, param instanceof Token ? param.toString() : String(param)]),
      ),
    ]),
  );
}

const statusOf = (header: string | null) =>
  Object.fromEntries(Object.entries(listed(header)).map(([pointer, { status }]) => [pointer, status]));

interface Envelope {
  data: Record<string, unknown>;
  evidence: Record<string, { source: string; status: string }>;
  status: Record<string, string>;
  warnings: { code: string; message: string; path?: string }[];
}

interface ScrapeBody {
  url: string;
  schema: Record<string, string>;
  task_description: string;
}

/** What a client makes of a scrape: the data, each field's status, the warnings' codes and paths, and the engine. */
interface ClientView {
  data: Record<string, unknown>;
  status: Record<string, string>;
  warnings: { code: string; path?: string }[];
  engine?: string;
  /** The model's tokens sent, when the model answered. */
  tokensIn?: number;
}

async function throughNode(run: RunningStack, body: ScrapeBody, evidence: boolean): Promise<ClientView> {
  const winnow = new Winnow({ apiKey: run.stack.apiKey, baseUrl: run.stack.gatewayUrl });
  const { data, status, warnings, engine, tokens } = await winnow.scrape({
    url: body.url,
    schema: body.schema,
    taskDescription: body.task_description,
    options: { evidence },
  });
  return {
    data,
    status,
    warnings: warnings.map(({ code, path }) => ({ code, ...(path ? { path } : {}) })),
    engine,
    ...(tokens ? { tokensIn: tokens.input } : {}),
  };
}

/** The Python client, run by python3 on the request read from stdin; it prints what it made of the answer. */
const PYTHON_SCRAPE = `
import json, sys
from winnow import Winnow
request = json.load(sys.stdin)
client = Winnow(api_key=request["api_key"], base_url=request["base_url"])
answer = client.scrape(request["url"], request["schema"], request["task_description"], evidence=request["evidence"])
result = answer["data"] if request["evidence"] else answer
warnings = [{key: w[key] for key in ("code", "path") if key in w} for w in result.warnings]
tokens = {"tokensIn": result.tokens["input"]} if result.tokens else {}
print(json.dumps({"data": result, "status": result.status, "warnings": warnings, "engine": result.engine, **tokens}))
`;

async function throughPython(run: RunningStack, body: ScrapeBody, evidence: boolean): Promise<ClientView> {
  const child = promisify(execFile)("python3", ["-c", PYTHON_SCRAPE], {
    env: { ...process.env, PYTHONPATH: path.resolve(import.meta.dirname, "../../clients/python") },
  });
  child.child.stdin?.end(
    JSON.stringify({ ...body, evidence, api_key: run.stack.apiKey, base_url: run.stack.gatewayUrl }),
  );
  return JSON.parse((await child).stdout) as ClientView;
}

const KETTLE = `<!doctype html><html><head><title>Ridgeline Kettle | Shop</title>
<meta name="description" content="A stovetop kettle in brushed steel, the shop's best seller.">
<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Recipe", name: "Kettle Tea", totalTime: "PT45M", recipeYield: "4" })}</script>
</head><body><h1>Ridgeline Kettle</h1>
<table class="specs"><tr><th>Material</th><td>Brushed steel</td></tr><tr><th>Capacity</th><td>1.7 litres</td></tr></table>
<p>Boils fast on any stove.</p></body></html>`;

/** Long enough to be read in parts: each aisle names its own manager. */
const AISLES = `<!doctype html><html><head><title>Store</title></head><body><h1>Store</h1>${Array.from(
  { length: 6 },
  (_, n) => `<h2>Aisle ${n}</h2><p>${"Filler text about the shop. ".repeat(20)}</p><p>Manager: Manager ${n}</p>`,
).join("")}</body></html>`;

const PAGES = { "/kettle": { body: KETTLE }, "/aisles": { body: AISLES } };

describe("field status without a model", () => {
  let run: RunningStack;
  beforeAll(async () => {
    run = await launchStack(PAGES);
  });
  afterAll(async () => {
    await run?.stop();
  });

  const request = (options?: object) => ({
    url: `${run.site.origin}/kettle`,
    schema: {
      servings: "integer",
      material: "string",
      title: "string",
      total_time_minutes: "integer",
      warranty: "string",
      summary: "string",
    },
    task_description: "Summarize the kettle in one sentence.",
    ...(options ? { options } : {}),
  });

  it("answers a field the task names with null and needs-model, and states every other field's status in headers", async () => {
    const res = await run.scrape(request());
    expect(res.status).toBe(200);
    // The body keeps the schema's exact shape.
    expect(await res.json()).toEqual({
      servings: 4,
      material: "Brushed steel",
      title: "Kettle Tea",
      total_time_minutes: 45,
      warranty: null,
      summary: null,
    });
    // `found` is what the page shows: the spec table's material. The JSON-LD's title, servings and time are shown
    // nowhere a reader sees; nothing on the page names a warranty.
    expect(statusOf(res.headers.get("winnow-field-status"))).toEqual({
      "/servings": "unverified",
      "/title": "unverified",
      "/total_time_minutes": "unverified",
      "/warranty": "absent",
      "/summary": "needs-model",
    });
    expect(listed(res.headers.get("winnow-warnings"))).toEqual({ "needs-model": { path: "/summary" } });
  });

  it("gives both clients every field's status and the warnings, plain and with evidence", async () => {
    const expected = {
      data: {
        servings: 4,
        material: "Brushed steel",
        title: "Kettle Tea",
        total_time_minutes: 45,
        warranty: null,
        summary: null,
      },
      status: {
        "/servings": "unverified",
        "/material": "found",
        "/title": "unverified",
        "/total_time_minutes": "unverified",
        "/warranty": "absent",
        "/summary": "needs-model",
      },
      warnings: [{ code: "needs-model", path: "/summary" }],
      engine: "builtin",
      // The gateway states the model's tokens on every answer: none here.
      tokensIn: 0,
    };
    for (const client of [throughNode, throughPython]) {
      for (const evidence of [false, true]) {
        expect(await client(run, request(), evidence), `${client.name}, evidence ${evidence}`).toEqual(expected);
      }
    }
  });

  it("puts each value's status beside its evidence, and every field's status and warning in the envelope", async () => {
    const res = await run.scrape(request({ evidence: true }));
    const { evidence, status, warnings } = (await res.json()) as Envelope;
    expect(status).toEqual({
      "/servings": "unverified",
      "/material": "found",
      "/title": "unverified",
      "/total_time_minutes": "unverified",
      "/warranty": "absent",
      "/summary": "needs-model",
    });
    expect(evidence["/servings"]).toMatchObject({ source: "json-ld", grounded: false, status: "unverified" });
    expect(evidence["/material"]).toMatchObject({ source: "label", grounded: true, status: "found" });
    expect(evidence["/title"]?.status).toBe("unverified");
    expect(evidence["/summary"]).toBeUndefined();
    expect(warnings).toEqual([{ code: "needs-model", path: "/summary", message: expect.stringContaining("model") }]);
  });
});

describe("field status with a model", () => {
  let run: RunningStack;
  let llm: FakeLlm;
  beforeAll(async () => {
    // The scripted model reads the manager its part names, and a price that is nowhere on the page.
    llm = await startFakeLlm((body: ChatRequestBody) => {
      const part = /<page_content>\n([\s\S]*)\n<\/page_content>/.exec(body.messages[1]?.content ?? "")?.[1] ?? "";
      return {
        store: "Store",
        manager: /Manager: (Manager \d)/.exec(part)?.[1] ?? null,
        price: 49.5,
        opening_hours: null,
        summary: "A shop of six aisles.",
      };
    });
    run = await launchStack(PAGES, {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: "test-key",
      LLM_PAGE_TOKENS: "300",
      EXTRACT_MAX_PARTS: "2",
    });
  });
  afterAll(async () => {
    await run?.stop();
    await llm?.close();
  });

  const aisles = () => ({
    url: `${run.site.origin}/aisles`,
    schema: { store: "string", manager: "string", price: "number", opening_hours: "string", summary: "string" },
    task_description: "Write a one-line summary of the shop.",
  });
  const expected = {
    "/store": "found",
    "/manager": "conflict",
    "/price": "unverified",
    "/opening_hours": "truncated",
    "/summary": "derived",
  };

  it("says found, derived, unverified, conflict and truncated, in the headers and the envelope", async () => {
    const res = await run.scrape({ ...aisles(), options: { evidence: true } });
    expect(res.status).toBe(200);
    const { data, evidence, status, warnings } = (await res.json()) as Envelope;
    expect(data).toEqual({
      store: "Store",
      manager: "Manager 0",
      price: 49.5,
      opening_hours: null,
      summary: "A shop of six aisles.",
    });
    expect(status).toEqual(expected);
    const { "/store": _found, ...notFound } = expected;
    expect(statusOf(res.headers.get("winnow-field-status"))).toEqual(notFound);
    expect(evidence["/price"]?.status).toBe("unverified");
    expect(evidence["/summary"]?.status).toBe("derived");
    const codes = warnings.map((w) => `${w.code} ${w.path ?? ""}`.trim());
    expect(codes).toEqual(
      expect.arrayContaining(["content-truncated", "merge-conflict /manager", "ungrounded /price"]),
    );
    const header = listed(res.headers.get("winnow-warnings"));
    expect(header["content-truncated"]).toEqual({});
    expect(header["merge-conflict"]).toEqual({ path: "/manager" });
  });

  it("gives both clients found, derived, unverified, conflict and truncated, plain and with evidence", async () => {
    for (const client of [throughNode, throughPython]) {
      for (const evidence of [false, true]) {
        const view = await client(run, aisles(), evidence);
        const label = `${client.name}, evidence ${evidence}`;
        expect(view.status, label).toEqual(expected);
        expect(view.data.manager, label).toBe("Manager 0");
        expect(view.engine, label).toBe("llm");
        expect(view.tokensIn, label).toBeGreaterThan(0);
        expect(view.warnings, label).toEqual(
          expect.arrayContaining([
            { code: "content-truncated" },
            { code: "merge-conflict", path: "/manager" },
            { code: "ungrounded", path: "/price" },
          ]),
        );
      }
    }
  });
});

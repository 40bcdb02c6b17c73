/**
 * Every example in the README, the docs it links and the clients' READMEs, run against a running stack as a reader
 * would copy it (doctest style): curl commands, request bodies and schemas are sent, Node.js and Python programs run
 * (the blocks of one document and language in order, as one program, the way a reader follows them), response
 * samples are held against real answers. The documents' example hosts are the stack's fixture site serving the
 * sample shop page `npm start` serves; `http://127.0.0.1:8080` and `wnw_...` become this stack's address and key.
 * A block of a kind no check knows fails the test, so a new example cannot go unrun.
 */
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PROBLEM_TYPES, type ProblemSlug } from "@winnow/platform";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_PAGE } from "../../scripts/src/sample-site.js";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { DOCUMENTS, type DocBlock, docBlocks } from "../support/doc-blocks.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";

const run$ = promisify(execFile);
const blocks = await docBlocks(REPO_ROOT);
/** The example hosts the documents use, and the paths they name there. */
const EXAMPLE_URL = /https:\/\/(?:shop|hooks)\.example(\/[^\s"'`)]*)?/g;
const paths = new Set(blocks.flatMap((block) => [...block.text.matchAll(EXAMPLE_URL)].map((m) => m[1] ?? "/")));

let run: RunningStack;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  run = await launchStack(Object.fromEntries([...paths].map((at) => [at, { body: SAMPLE_PAGE }])));
  env = { ...process.env, WINNOW_API_KEY: run.stack.apiKey, WINNOW_BASE_URL: run.stack.gatewayUrl };
});
afterAll(async () => {
  await run?.stop();
});

/** The text as a reader on this stack would run it. */
function onThisStack(text: string): string {
  return text
    .replace(/https:\/\/(?:shop|hooks)\.example/g, run.site.origin)
    .replaceAll("http://127.0.0.1:8080", run.stack.gatewayUrl)
    .replaceAll("wnw_...", run.stack.apiKey);
}

async function post(body: unknown): Promise<{ status: number; headers: Headers; answer: Record<string, unknown> }> {
  const res = await run.scrape(JSON.parse(onThisStack(JSON.stringify(body))));
  return { status: res.status, headers: res.headers, answer: (await res.json()) as Record<string, unknown> };
}

/** What an example's error branch prints: a typed error with its status, or a rate limit. */
const PRINTED_FAILURE = /\(\d{3}\), request |slow down; retry/;

/** Names an example takes as given (a webhook handler's body, header and secret), and what must then hold. */
async function given(file: string, language: "node" | "python"): Promise<{ before: string; after: string }> {
  if (file !== "docs/api.md") return { before: "", after: "" };
  const account = (await (
    await fetch(`${run.stack.gatewayUrl}/account`, { headers: { "x-api-key": run.stack.apiKey } })
  ).json()) as {
    webhook_secret: string;
  };
  const body = JSON.stringify({ id: "job:0", type: "page", job_id: "job" });
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac("sha256", account.webhook_secret).update(`${t}.${body}`).digest("hex")}`;
  const names = {
    body: JSON.stringify(body),
    signature: JSON.stringify(signature),
    secret: JSON.stringify(account.webhook_secret),
  };
  return language === "node"
    ? {
        before: `const rawBody = ${names.body}, signature = ${names.signature}, secret = ${names.secret};\n`,
        after: `\nif (!verified) throw new Error("a delivery signed with the account's secret was not verified");\n`,
      }
    : {
        before: `raw_body, signature, secret = ${names.body}.encode(), ${names.signature}, ${names.secret}\n`,
        after: `\nassert verified, "a delivery signed with the account's secret was not verified"\n`,
      };
}

/** Each document's blocks of one language, in order: one program. */
function programs(kind: "node" | "python"): [string, DocBlock[]][] {
  const byFile = new Map<string, DocBlock[]>();
  for (const block of blocks.filter((b) => b.kind === kind))
    byFile.set(block.file, [...(byFile.get(block.file) ?? []), block]);
  return [...byFile];
}

describe("the documents' examples, against a running stack", () => {
  it("are found in every document, of every kind this test knows", () => {
    expect(new Set(blocks.map((b) => b.file))).toEqual(new Set(DOCUMENTS));
    expect(new Set(blocks.map((b) => b.kind))).toEqual(
      new Set([
        "curl",
        "workflow",
        "schema",
        "request",
        "problem",
        "envelope",
        "headers",
        "mcp-config",
        "node",
        "python",
        "text",
      ]),
    );
  });

  it.each(blocks.filter((b) => b.kind === "curl").map((b) => [b.where, b] as const))(
    "%s: the curl command answers what its comment shows",
    async (_, block) => {
      const { stdout } = await run$("bash", ["-euo", "pipefail", "-c", onThisStack(block.text)], { env });
      const answer = JSON.parse(stdout) as Record<string, unknown>;
      expect(String(answer.type ?? "")).not.toMatch(/problems/);
      const shown = block.text.match(/^# (\{.*\})$/m)?.[1];
      if (shown) expect(answer).toEqual(JSON.parse(shown));
    },
  );

  it.each(blocks.filter((b) => b.kind === "schema").map((b) => [b.where, b] as const))(
    "%s: the schema is answered in its shape",
    async (_, block) => {
      const schema = JSON.parse(block.text) as Record<string, unknown>;
      const { status, answer } = await post({ url: "https://shop.example/ridgeline", schema });
      expect(status, JSON.stringify(answer)).toBe(200);
      expect(Object.keys(answer).sort()).toEqual(Object.keys(schema).sort());
    },
  );

  it.each(blocks.filter((b) => b.kind === "request").map((b) => [b.where, b] as const))(
    "%s: the request is answered",
    async (_, block) => {
      const { status, answer } = await post(JSON.parse(block.text));
      expect(status, JSON.stringify(answer)).toBe(200);
    },
  );

  it.each(blocks.filter((b) => b.kind === "problem").map((b) => [b.where, b] as const))(
    "%s: the problem document is one of the catalogue's",
    (_, block) => {
      const problem = JSON.parse(block.text) as { type: string; status: number; title?: string };
      const slug = problem.type.replace("https://winnow.dev/problems/", "") as ProblemSlug;
      expect(PROBLEM_TYPES[slug]).toMatchObject({
        status: problem.status,
        ...(problem.title && { title: problem.title }),
      });
    },
  );

  it.each(blocks.filter((b) => b.kind === "envelope").map((b) => [b.where, b] as const))(
    "%s: the evidence envelope has a real one's keys",
    async (_, block) => {
      const shown = JSON.parse(block.text) as { data: Record<string, unknown>; evidence: Record<string, object> };
      const schema = Object.fromEntries(Object.keys(shown.data).map((field) => [field, "string"]));
      const { answer } = await post({
        url: "https://shop.example/ridgeline",
        schema,
        task_description: "Summarise it in one sentence.",
        options: { evidence: true },
      });
      expect(Object.keys(shown).sort()).toEqual(Object.keys(answer).sort());
      const known = ["source", "text", "selector", "confidence", "grounded", "status", "alternative"];
      for (const entry of Object.values(shown.evidence))
        for (const key of Object.keys(entry)) expect(known).toContain(key);
    },
  );

  it.each(blocks.filter((b) => b.kind === "headers").map((b) => [b.where, b] as const))(
    "%s: each header is one a real answer carries",
    async (_, block) => {
      const { headers } = await post({
        url: "https://shop.example/ridgeline",
        schema: { product_name: "string", summary: "string" },
        task_description: "Summarise it in one sentence.",
      });
      for (const line of block.text.split("\n").filter(Boolean)) {
        const name = line.slice(0, line.indexOf(":"));
        expect(headers.has(name), `${name} in ${[...headers.keys()].join(", ")}`).toBe(true);
      }
    },
  );

  it.each(blocks.filter((b) => b.kind === "mcp-config").map((b) => [b.where, b] as const))(
    "%s: each MCP server, started or reached as configured, lists the tools and answers with the key",
    async (_, block) => {
      const { mcpServers } = JSON.parse(onThisStack(block.text)) as {
        mcpServers: Record<
          string,
          {
            command?: string;
            args?: string[];
            env?: Record<string, string>;
            url?: string;
            headers?: Record<string, string>;
          }
        >;
      };
      for (const server of Object.values(mcpServers)) {
        const client = new Client({ name: "doc-examples", version: "1.0.0" });
        // A host starts a stdio server in its own directory: here the repository, where the client is installed.
        await client.connect(
          server.command
            ? new StdioClientTransport({
                command: server.command,
                args: server.args ?? [],
                env: { PATH: process.env.PATH ?? "", ...server.env },
                cwd: REPO_ROOT,
                stderr: "pipe",
              })
            : new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: server.headers } }),
        );
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("scrape");
          const account = await client.callTool({ name: "account", arguments: {} });
          expect(account.isError, JSON.stringify(account.content)).toBeFalsy();
        } finally {
          await client.close();
        }
      }
    },
  );

  it.each(programs("node"))("%s: the Node.js examples run, as one program", async (file, parts) => {
    const { before, after } = await given(file, "node");
    const source = before + parts.map((b) => onThisStack(b.text)).join("\n") + after;
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    const { stdout, stderr } = await run$("node", ["--input-type=module", "-e", js], { cwd: REPO_ROOT, env });
    expect(`${stdout}${stderr}`).not.toMatch(PRINTED_FAILURE);
  });

  it.each(programs("python"))("%s: the Python examples run, as one program", async (file, parts) => {
    const { before, after } = await given(file, "python");
    const source = before + parts.map((b) => onThisStack(b.text)).join("\n") + after;
    const { stdout, stderr } = await run$("python3", ["-c", source], {
      cwd: REPO_ROOT,
      env: { ...env, PYTHONPATH: path.join(REPO_ROOT, "clients/python") },
    });
    expect(`${stdout}${stderr}`).not.toMatch(PRINTED_FAILURE);
  });

  it("development commands name scripts that exist", async () => {
    const scripts = (
      JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    for (const block of blocks.filter((b) => b.kind === "workflow"))
      for (const [, name] of block.text.matchAll(/npm run ([\w:-]+)/g))
        expect(scripts, block.where).toHaveProperty([name!]);
  });
});

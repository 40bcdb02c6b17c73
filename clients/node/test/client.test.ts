/**
 * The Node.js client against the real stack (four processes, real Chromium),
 * with a scripted upstream in front of the gateway for retries and timeouts.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  RateLimitError,
  ServerError,
  TargetError,
  TimeoutError,
  Winnow,
} from "@winnow/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES } from "../../../test/e2e/pages.js";
import { freePorts } from "../../../test/support/ports.js";
import { startScriptedUpstream } from "../../../test/support/scripted-upstream.js";
import { launchStack, type RunningStack } from "../../../test/support/stack-under-test.js";

let run: RunningStack;
let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
let product: string;

beforeAll(async () => {
  run = await launchStack(PAGES);
  upstream = await startScriptedUpstream(run.stack.gatewayUrl);
  product = `${run.site.origin}/product`;
});
afterAll(async () => {
  await upstream?.close();
  await run?.stop();
});

/** A client of the scripted upstream, with fast retries. */
const client = (options: ConstructorParameters<typeof Winnow>[0] = {}) =>
  new Winnow({ apiKey: run.stack.apiKey, baseUrl: upstream.url, retryBaseDelayMs: 10, ...options });

async function failure(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: Error) => error,
  );
}

describe("Winnow client", () => {
  it("scrapes with the key sent for you, typed by the schema, with each field's status, the request id and engine", async () => {
    const { data, status, warnings, omitted, requestId, engine, renderPath } = await client().scrape({
      url: product,
      schema: { product_name: "string", price_usd: "number", tags: ["string"] },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99, tags: null });
    const name: string | null = data.product_name;
    expect(name).toBe("Ridgeline Trail Shoe");
    expect(upstream.seen.at(-1)?.headers["x-api-key"]).toBe(run.stack.apiKey);
    // From the Winnow-Field-Status header: the page shows the JSON-LD's name and price; nothing on it names tags.
    expect(status).toEqual({ "/product_name": "found", "/price_usd": "found", "/tags": "absent" });
    expect({ warnings, omitted, engine, renderPath }).toEqual({
      warnings: [],
      omitted: 0,
      engine: "builtin",
      renderPath: "static",
    });
    expect(requestId).toMatch(/^[\w-]{8,}$/);
  });

  it("gives a JSON Schema's answer the statuses of its properties, not of its keywords", async () => {
    const { data, status } = await client().scrape({
      url: product,
      schema: {
        type: "object",
        properties: { product_name: { $ref: "#/$defs/Name" }, tags: { type: "array", items: { type: "string" } } },
        $defs: { Name: { type: "string" } },
      },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", tags: null });
    expect(status).toEqual({ "/product_name": "found", "/tags": "absent" });
  });

  it("reads the headers as the gateway writes them: pointers percent-encoded, lists bounded", async () => {
    const { status } = await client().scrape({ url: product, schema: { größe: "string", brand: "string" } });
    expect(status).toEqual({ "/größe": "absent", "/brand": "unverified" });
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, n) => [`missing_${n}`, "string" as const]));
    const cut = await client().scrape({ url: product, schema: many });
    expect(cut.omitted).toBe(8);
    expect(cut.status).toEqual(Object.fromEntries(Array.from({ length: 32 }, (_, n) => [`/missing_${n}`, "absent"])));
  });

  it("reads a whole listing's pages from Winnow-Pages", async () => {
    const { pages } = await client().scrape({
      url: product,
      schema: { offers: [{ name: "string", url: "string" }] },
      options: { pages: 2, details: false },
    });
    // The product page links to no next page: one listing page read.
    expect(pages).toEqual({ listing: 1, details: 0, failed: 0, model: 0 });
  });

  it("raises ServerError for a status header that is not an RFC 8941 list", async () => {
    upstream.script.push({
      status: 200,
      headers: { "content-type": "application/json", "winnow-field-status": '"/a";status=' },
      body: JSON.stringify({ a: null }),
    });
    const error = await failure(client().scrape({ url: product, schema: { a: "string" } }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 200, type: "invalid-response" });
  });

  it("answers the key's account", async () => {
    const account = await client().account();
    expect(account).toEqual({
      accountId: expect.any(String),
      keyId: expect.any(String),
      limits: {
        plan: expect.any(String),
        requestsPerMinute: expect.any(Number),
        maxConcurrentScrapes: expect.any(Number),
      },
      webhookSecret: expect.stringMatching(/.{16,}/),
    });
    expect(run.stack.apiKey).toContain(account.keyId);
    const refused = await failure(client({ apiKey: "wnw_not_a_real_key" }).account());
    expect(refused).toBeInstanceOf(AuthenticationError);
  });

  it("asks for a screenshot beside the evidence", async () => {
    const { data, evidence, screenshot } = await client().scrape({
      url: product,
      schema: { product_name: "string" },
      options: { evidence: true, screenshot: true },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe" });
    expect(evidence["/product_name"]?.source).toBe("json-ld");
    expect(screenshot).toMatch(/^data:image\/jpeg;base64,\/9j\//);
  });

  it("returns the page's markdown beside the evidence when formats asks", async () => {
    const { data, markdown } = await client().scrape({
      url: product,
      schema: { product_name: "string" },
      options: { evidence: true, formats: ["json", "markdown"] },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe" });
    expect(markdown).toContain("Ridgeline Trail Shoe");
  });

  it("returns the data with its evidence when asked", async () => {
    const { data, evidence } = await client().scrape({
      url: product,
      schema: { product_name: "string", price_usd: "number" },
      options: { evidence: true },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 });
    expect(evidence["/product_name"]).toMatchObject({
      source: "json-ld",
      text: "Ridgeline Trail Shoe",
      grounded: true,
    });
    expect(evidence["/price_usd"]?.text).toContain("129.99");
  });

  it("returns each field's status and the warnings with the evidence: a task without a model answers needs-model", async () => {
    const { data, evidence, status, warnings } = await client().scrape({
      url: product,
      schema: { product_name: "string", colour: "string", summary: "string" },
      taskDescription: "Summarize it in one sentence.",
      options: { evidence: true },
    });
    expect(data).toEqual({ product_name: "Ridgeline Trail Shoe", colour: null, summary: null });
    // The JSON-LD's name is the heading the page shows; nothing on the page names a colour.
    expect(status).toEqual({ "/product_name": "found", "/colour": "absent", "/summary": "needs-model" });
    expect(evidence["/product_name"]?.status).toBe("found");
    expect(warnings).toEqual([{ code: "needs-model", path: "/summary", message: expect.stringContaining("model") }]);
  });

  it("reads the key from WINNOW_API_KEY", async () => {
    process.env.WINNOW_API_KEY = run.stack.apiKey;
    try {
      const { data } = await new Winnow({ baseUrl: run.stack.gatewayUrl }).scrape({
        url: product,
        schema: { brand: "string" },
      });
      expect(data).toEqual({ brand: "Northpeak" });
    } finally {
      delete process.env.WINNOW_API_KEY;
    }
    expect(() => new Winnow({ baseUrl: run.stack.gatewayUrl })).toThrow(/WINNOW_API_KEY/);
  });

  it("raises AuthenticationError for a wrong key, with the problem and request id", async () => {
    const error = await failure(
      client({ apiKey: "wnw_not_a_real_key" }).scrape({ url: product, schema: { a: "string" } }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: "unauthorized", retryable: false });
    expect((error as AuthenticationError).requestId).toMatch(/.+/);
  });

  it("raises InvalidRequestError with details for a bad schema or URL", async () => {
    const schema = await failure(client().scrape({ url: product, schema: { price: "money" } as never }));
    expect(schema).toBeInstanceOf(InvalidRequestError);
    expect((schema as InvalidRequestError).details).toEqual([expect.objectContaining({ path: "/schema/price" })]);
    const url = await failure(client().scrape({ url: "ftp://files.example/x", schema: { a: "string" } }));
    expect(url).toBeInstanceOf(InvalidRequestError);
    expect(url).toMatchObject({ status: 422, type: "url-not-allowed" });
  });

  it("raises TargetError with the site's status", async () => {
    const error = await failure(client().scrape({ url: `${run.site.origin}/gone`, schema: { a: "string" } }));
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).targetStatus).toBe(404);
  });

  it("retries after 429 and 503, honouring Retry-After, then succeeds", async () => {
    const before = upstream.seen.length;
    upstream.script.push({ status: 429, headers: { "retry-after": "0" } }, { status: 503 });
    const { data } = await client().scrape({ url: product, schema: { brand: "string" } });
    expect(data).toEqual({ brand: "Northpeak" });
    expect(upstream.seen.length - before).toBe(3);
  });

  it("retries after a dropped connection", async () => {
    upstream.script.push("destroy");
    expect((await client().scrape({ url: product, schema: { brand: "string" } })).data).toEqual({ brand: "Northpeak" });
  });

  it("gives up after maxRetries with the last error", async () => {
    upstream.script.push(
      {
        status: 429,
        headers: { "retry-after": "0" },
        body: JSON.stringify({
          type: "https://winnow.dev/problems/rate-limited",
          title: "Too many requests",
          status: 429,
        }),
      },
      { status: 429, headers: { "retry-after": "0" } },
    );
    const limited = await failure(client({ maxRetries: 1 }).scrape({ url: product, schema: { brand: "string" } }));
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBe(0);

    upstream.script.push({ status: 503 });
    const down = await failure(client({ maxRetries: 0 }).scrape({ url: product, schema: { brand: "string" } }));
    expect(down).toBeInstanceOf(ServerError);
    expect(down).toMatchObject({ status: 503, retryable: true });
  });

  it("does not retry what cannot succeed", async () => {
    const before = upstream.seen.length;
    await failure(client({ apiKey: "wnw_bad" }).scrape({ url: product, schema: { a: "string" } }));
    expect(upstream.seen.length - before).toBe(1);
    // A 503 that says it is not retryable: a renderer without a browser stays without one.
    const noBrowser = {
      type: "https://winnow.dev/problems/browser-unavailable",
      title: "No browser to render this page",
      status: 503,
      retryable: false,
    };
    upstream.script.push({ status: 503, body: JSON.stringify(noBrowser) });
    expect(await failure(client().scrape({ url: product, schema: { a: "string" } }))).toMatchObject({
      status: 503,
      type: "browser-unavailable",
      retryable: false,
    });
    expect(upstream.seen.length - before).toBe(2);
  });

  it("times out with TimeoutError, and stops on the caller's AbortSignal", async () => {
    upstream.script.push("hang");
    const timedOut = await failure(client({ timeoutMs: 300 }).scrape({ url: product, schema: { a: "string" } }));
    expect(timedOut).toBeInstanceOf(TimeoutError);

    upstream.script.push("hang");
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("caller gave up")), 100);
    const aborted = await failure(
      client().scrape({ url: product, schema: { a: "string" }, signal: controller.signal }),
    );
    expect(aborted.message).toBe("caller gave up");
  });

  it("raises ConnectionError when nothing listens", async () => {
    const [port] = await freePorts(1);
    const error = await failure(
      new Winnow({ apiKey: "k", baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1, retryBaseDelayMs: 1 }).scrape({
        url: product,
        schema: { a: "string" },
      }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it("ships a CommonJS build with the same API", () => {
    const required = createRequire(import.meta.url)("@winnow/client") as typeof import("@winnow/client");
    expect(typeof required.Winnow).toBe("function");
    expect(new required.Winnow({ apiKey: "k" }).baseUrl).toBe("http://127.0.0.1:8080");
  });

  it("infers result types from schema literals", async () => {
    // tsc on a file of type assertions: it fails to compile when inference is wrong.
    const project = path.resolve(import.meta.dirname, "types");
    await promisify(execFile)(process.execPath, [
      createRequire(import.meta.url).resolve("typescript/bin/tsc"),
      "-p",
      project,
    ]);
  });
});

/**
 * As a user installs it: from a copy of the client's folder in a clone that has never built it (the repository's
 * node_modules, as after `npm install` there), into a fresh project, by `npm install <folder>` and by `npm pack` and
 * the tarball; then a typed scrape compiled by tsc against what was installed, run against the stack.
 */
describe("the client installed in a fresh project", () => {
  const repo = path.resolve(import.meta.dirname, "../../..");
  const exec = promisify(execFile);
  const npm = (cwd: string, ...args: string[]) =>
    exec("npm", [...args, "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd,
      env: { ...process.env, npm_config_loglevel: "error" },
    });
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "winnow-client-install-"));
  });
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** The client's sources as a fresh clone holds them: no dist/. */
  async function freshClone(name: string): Promise<string> {
    const clone = path.join(scratch, name);
    const folder = path.join(clone, "clients/node");
    await mkdir(folder, { recursive: true });
    for (const file of ["package.json", "README.md", "tsconfig.esm.json", "tsconfig.cjs.json", "src"]) {
      await cp(path.join(repo, "clients/node", file), path.join(folder, file), { recursive: true });
    }
    await cp(path.join(repo, "tsconfig.base.json"), path.join(clone, "tsconfig.base.json"));
    await symlink(path.join(repo, "node_modules"), path.join(clone, "node_modules"));
    return folder;
  }

  /** A new project that depends on the client by `spec`, with a TypeScript file that scrapes through it. */
  async function project(name: string, spec: string): Promise<string> {
    const app = path.join(scratch, name);
    await mkdir(app);
    await writeFile(path.join(app, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
    await npm(app, "install", spec);
    await writeFile(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", strict: true, lib: ["ES2022", "DOM"], types: [] },
        files: ["scrape.ts"],
      }),
    );
    await writeFile(
      path.join(app, "scrape.ts"),
      `import { Winnow, type FieldStatus } from "@winnow/client";
const winnow = new Winnow({ apiKey: ${JSON.stringify(run.stack.apiKey)}, baseUrl: ${JSON.stringify(run.stack.gatewayUrl)} });
const { data, status, engine } = await winnow.scrape({ url: ${JSON.stringify(product)}, schema: { product_name: "string", price_usd: "number" } });
const name: string | null = data.product_name;
const price: number | null = data.price_usd;
const priceStatus: FieldStatus | undefined = status["/price_usd"];
// @ts-expect-error: not a field of the schema (proves the installed types were read, not any).
data.colour;
console.log(JSON.stringify({ name, price, priceStatus, engine }));
`,
    );
    await exec(process.execPath, [createRequire(import.meta.url).resolve("typescript/bin/tsc"), "-p", app]);
    return app;
  }

  async function scrapeIn(app: string): Promise<void> {
    const { stdout } = await exec(process.execPath, ["scrape.js"], { cwd: app });
    expect(JSON.parse(stdout)).toEqual({
      name: "Ridgeline Trail Shoe",
      price: 129.99,
      priceStatus: "found",
      engine: "builtin",
    });
    const cjs = await exec(process.execPath, ["-e", "console.log(typeof require('@winnow/client').Winnow)"], {
      cwd: app,
    });
    expect(cjs.stdout.trim()).toBe("function");
  }

  // npm installs and two tsc runs: more than the default test time on a busy machine.
  const INSTALL = { timeout: 300_000 };

  it("builds on `npm install <folder>`", INSTALL, async () => {
    const folder = await freshClone("linked");
    const app = await project("app-linked", folder);
    await readFile(path.join(folder, "dist/esm/index.js"));
    await scrapeIn(app);
  });

  it("packs its build with `npm pack`, and installs from the tarball", INSTALL, async () => {
    const folder = await freshClone("packed");
    const { stdout } = await npm(folder, "pack", "--json", "--pack-destination", scratch);
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "dist/esm/index.js",
        "dist/esm/index.d.ts",
        "dist/cjs/index.js",
        "dist/cjs/index.d.ts",
        "dist/cjs/package.json",
        // The MCP server's bin (winnow-mcp).
        "dist/esm/mcp/bin.js",
      ]),
    );
    expect(files.filter((file) => file.endsWith(".tsbuildinfo"))).toEqual([]);
    const app = await project("app-packed", path.join(scratch, packed!.filename));
    await scrapeIn(app);
  });
});

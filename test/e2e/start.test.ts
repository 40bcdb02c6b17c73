/**
 * `npm start` as processes, as a user runs it: a quiet start (no warning but,
 * on a Node.js older than the supported one, one line saying what to install;
 * through planned reconnects of the revocation feed), one request followed
 * across the services' logs, a second start refused on ports or data
 * directory in use, a second auth refused on a database in use, and a second
 * stack beside the first on its own ports and data directory; refusals come
 * before any build, and killing it outright (or the npm CLI that ran it) takes its services down too.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { unsupportedNodeWarning } from "@winnow/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, serviceEntry } from "../../scripts/src/stack.js";
import { TEST_TOKEN_ENV } from "../support/caller-tokens.js";
import { descendants, stillRunning } from "../support/process-tree.js";
import {
  type ReadyStack,
  runStart,
  type StartProcess,
  serviceLines,
  stackPlacement,
  untilReady,
} from "../support/start-process.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

const WARN = 40;

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 100));
}

function scrape(stack: ReadyStack, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.gatewayUrl}/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": stack.apiKey, ...headers },
    body: JSON.stringify({ url: stack.sampleUrl, schema: { product_name: "string", price_usd: "number" } }),
  });
}

async function expectServes(stack: ReadyStack): Promise<void> {
  const res = await scrape(stack);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ product_name: "Ridgeline Trail Running Shoe", price_usd: 129.99 });
}

describe("npm start", () => {
  const dataDirs: string[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "winnow-start-"));
    dataDirs.push(dir);
    return dir;
  };
  let first: StartProcess;
  let firstStack: ReadyStack;

  beforeAll(async () => {
    first = runStart({
      ...(await stackPlacement(await newDataDir())),
      LOG_LEVEL: "debug",
      // Planned reconnects every few seconds instead of every five minutes.
      GRPC_MAX_CONNECTION_AGE_MS: "2000",
    });
    firstStack = await untilReady(first);
  });
  afterAll(async () => {
    await first?.stop();
    // Retried: a stack stopped while starting may still be writing as its processes die.
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5 })));
  });

  it("starts and runs through planned reconnects without a warning, an error or a stack trace", async () => {
    const reconnects = () =>
      serviceLines(first).filter((l) => l.service === "gateway" && l.msg === "revocation feed reconnected").length;
    await until(() => reconnects() >= 2);
    const loud = serviceLines(first).filter((l) => (l.level as number) >= WARN);
    expect(loud, JSON.stringify(loud)).toEqual([]);
    const plain = first.lines.filter((line) => !line.startsWith("{"));
    // The one warning allowed: this Node.js's own, said once for the stack (none on the supported one).
    const nodeWarning = unsupportedNodeWarning();
    expect(plain.filter((line) => /warn|error|^\s+at /i.test(line))).toEqual(
      nodeWarning ? [`Warning: ${nodeWarning}`] : [],
    );
  });

  it("puts a scrape's request id on every service's lines, with the target host and the key id, never the key", async () => {
    const requestId = `e2e-${Date.now()}`;
    expect((await scrape(firstStack, { "x-request-id": requestId })).status).toBe(200);
    const keyId = firstStack.apiKey.split("_")[1];
    const linesOf = () => serviceLines(first).filter((l) => l.request_id === requestId);
    await until(() => new Set(linesOf().map((l) => l.service)).size === 4);
    for (const service of ["gateway", "renderer", "extractor"]) {
      expect(linesOf().filter((l) => l.service === service)).toContainEqual(
        expect.objectContaining({ target_host: "127.0.0.1", key_id: keyId }),
      );
    }
    // Auth checks the key before its id is known: its line has the request id.
    expect(linesOf().filter((l) => l.service === "auth").length).toBeGreaterThan(0);
    // The start prints the dev key for the user; no service logs it.
    expect(JSON.stringify(serviceLines(first))).not.toContain(firstStack.apiKey);
  });

  it("refuses a second start on the same ports in one line, exits non-zero, and leaves the first stack serving", async () => {
    const second = runStart(first.env);
    expect(await second.exited).toBe(1);
    expect(second.lines).toHaveLength(1);
    expect(second.lines[0]).toMatch(
      new RegExp(
        `^Winnow did not start: ports ${first.env.PORT} \\(the gateway's HTTP port, PORT\\), .*` +
          `${first.env.METRICS_PORT_BASE} \\(the gateway's metrics port, METRICS_PORT_BASE\\), .* in use`,
      ),
    );
    await expectServes(firstStack);
  });

  it("refuses a start on ports in use before it builds anything", async () => {
    const npm = spawn("npm", ["run", "-s", "start"], {
      cwd: REPO_ROOT,
      env: first.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    for (const stream of [npm.stdout, npm.stderr]) {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => lines.push(line));
    }
    expect(await new Promise((resolve) => npm.once("close", resolve))).toBe(1);
    // The refusal is all it said: the build's announcement (which precedes the build) never came.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Winnow did not start: ports .* in use/);
  });

  it("refuses a second start on free ports but the same data directory", async () => {
    const second = runStart({ ...(await stackPlacement(first.env.WINNOW_DATA_DIR!)) });
    expect(await second.exited).toBe(1);
    expect(second.lines).toEqual([
      `Winnow did not start: the data directory ${first.env.WINNOW_DATA_DIR} is in use by another process; give this stack its own with WINNOW_DATA_DIR.`,
    ]);
  });

  it("refuses a second auth on the same database before it opens it", async () => {
    const auth = spawn(process.execPath, [serviceEntry("auth")], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        ...TEST_TOKEN_ENV,
        WINNOW_DATA_DIR: first.env.WINNOW_DATA_DIR,
        GRPC_PORT: "0",
        METRICS_PORT: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [auth.stdout, auth.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk));
    const code = await new Promise((resolve) => auth.once("exit", resolve));
    expect(code).toBe(1);
    const lines = output
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({
      level: 60,
      msg: `cannot start: ${path.join(first.env.WINNOW_DATA_DIR!, "auth-db")} is in use by another process; an embedded database serves one process: stop the other one, or give this one its own WINNOW_DATA_DIR`,
    });
    expect(lines.map((l) => l.msg)).not.toContain("gRPC server listening");
    expect(lines.at(-1)).not.toHaveProperty("err");
    await expectServes(firstStack);
    expect(first.lines.filter((line) => line.startsWith("supervisor:"))).toEqual([]);
  });

  it(
    "runs a second stack beside the first on other ports, each service with runtime metrics of its own",
    async () => {
      const placement = await stackPlacement(await newDataDir());
      const second = runStart(placement);
      try {
        const secondStack = await untilReady(second);
        await expectServes(secondStack);
        await expectServes(firstStack);
        const base = Number(placement.METRICS_PORT_BASE);
        // The gateway, auth, the renderer, the extractor and the jobs worker.
        for (let i = 0; i < 5; i++) {
          const metrics = await (await fetch(`http://127.0.0.1:${base + i}/metrics`)).text();
          expect(metrics).toMatch(/^nodejs_eventloop_delay_p99\S* /m);
          expect(metrics).toMatch(/^nodejs_eventloop_utilization\S* /m);
          expect(metrics).toMatch(/^v8js_memory_heap_used\S* /m);
        }
      } finally {
        await second.stop();
      }
      // A whole stack starts in this test (the hooks' allowance, not the default test's).
    },
    2 * TEST_TIMEOUT_MS,
  );

  it(
    "takes its services down when the npm CLI that ran it is killed outright",
    async () => {
      const viaNpm = runStart(await stackPlacement(await newDataDir()), { viaNpm: true });
      try {
        await untilReady(viaNpm);
        const processes = descendants(viaNpm.child.pid!);
        // start.js, the five services and at least Chromium's main process.
        expect(processes.length).toBeGreaterThan(6);
        viaNpm.child.kill("SIGKILL");
        await expect.poll(() => stillRunning(processes), { timeout: TEST_TIMEOUT_MS, interval: 200 }).toEqual([]);
      } finally {
        await viaNpm.stop();
      }
    },
    3 * TEST_TIMEOUT_MS,
  );

  // Last: it ends the first stack.
  it(
    "takes its services and their Chromium down with it when it is killed outright",
    async () => {
      const processes = descendants(first.child.pid!);
      // The five services and at least Chromium's main process.
      expect(processes.length).toBeGreaterThan(5);
      first.child.kill("SIGKILL");
      await expect.poll(() => stillRunning(processes), { timeout: TEST_TIMEOUT_MS, interval: 200 }).toEqual([]);
      // The poll's own limit ends it first, naming the processes left.
    },
    2 * TEST_TIMEOUT_MS,
  );
});

/**
 * Faults survived: processes killed mid-request, Chromium killed under the
 * renderer, auth down, Postgres restarted, a model endpoint that hangs or
 * keeps failing, and accounts surviving a restart of every service. Each
 * test is bounded by the deadlines it sets; none waits on wall-clock luck.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, reply, startFakeLlm } from "../support/fake-llm.js";
import type { FixturePage } from "../support/fixture-site.js";
import { type PrivatePostgres, startPrivatePostgres } from "../support/private-postgres.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

const PAGE = `<!doctype html><html><head><title>Fault page</title></head><body><h1>Fault page</h1></body></html>`;
const PAGES: Record<string, FixturePage> = {
  "/ok": { body: PAGE },
  "/slow": { body: PAGE, delayMs: 2_000 },
};
const SCHEMA = { title: "string" };

async function problemOf(res: Response): Promise<{ status: number; type: string; retryable: boolean }> {
  const body = (await res.json()) as { type: string; retryable: boolean };
  return {
    status: res.status,
    type: body.type?.replace("https://winnow.dev/problems/", ""),
    retryable: body.retryable,
  };
}

/** Scrapes until one succeeds (after a restart), returning every failure seen on the way. */
async function scrapeUntilOk(
  run: RunningStack,
  attempts = 60,
): Promise<{ status: number; type: string; retryable: boolean }[]> {
  const failures = [];
  for (let i = 0; i < attempts; i++) {
    const res = await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA });
    if (res.status === 200) return failures;
    failures.push(await problemOf(res));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no success after ${attempts} attempts: ${JSON.stringify(failures.slice(-3))}`);
}

async function childPids(pid: number): Promise<{ pid: number; command: string }[]> {
  const { stdout } = await promisify(execFile)("ps", ["-o", "pid=,args=", "--ppid", String(pid)]);
  return stdout
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => ({ pid: Number(line.split(/\s+/)[0]), command: line }));
}

/**
 * Stops `run` and starts a stack on its data directory (and database): the dev key is the same and still answers, as
 * accounts and keys survive a restart of every service. Returns the new stack (stopping `run` again is harmless).
 */
async function restartEveryService(
  run: RunningStack,
  env: Record<string, string>,
  dataDir: string,
): Promise<RunningStack> {
  const key = run.stack.apiKey;
  expect((await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA })).status).toBe(200);
  await run.stop();
  const second = await launchStack(PAGES, env, { dataDir, store: "embedded" });
  expect(second.stack.apiKey).toBe(key);
  expect((await second.scrape({ url: `${second.site.origin}/ok`, schema: SCHEMA }, { "x-api-key": key })).status).toBe(
    200,
  );
  return second;
}

/** A describe's last test: its stack restarted whole on its data (`restart` puts the new stack in the old one's place). */
function itRestartsEveryService(database: string, restart: () => Promise<void>): void {
  // A stack stops and another starts.
  it(`accounts and keys survive a restart of every service (${database})`, restart, 3 * TEST_TIMEOUT_MS);
}

// One stack (on PGlite) serves the process faults in turn, then is restarted whole on the same data.
describe("process faults", () => {
  const env = { REQUEST_TIMEOUT_MS: "20000" };
  let dataDir: string;
  let run: RunningStack;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-faults-"));
    run = await launchStack(PAGES, env, { dataDir, store: "embedded" });
  });
  afterAll(async () => {
    await run?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("the renderer killed mid-request: a retryable problem at once, service again after its restart", async () => {
    const inFlight = run.scrape({ url: `${run.site.origin}/slow`, schema: SCHEMA });
    await new Promise((resolve) => setTimeout(resolve, 500));
    run.stack.process("renderer").kill("SIGKILL");
    const failure = await problemOf(await inFlight);
    expect([502, 503]).toContain(failure.status);
    expect(failure.retryable).toBe(true);
    await run.stack.waitUntilReady();
    for (const seen of await scrapeUntilOk(run)) expect(seen.retryable).toBe(true);
  });

  it("Chromium killed under the renderer: relaunched, and the next requests succeed", async () => {
    expect((await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA })).status).toBe(200);
    const browsers = (await childPids(run.stack.process("renderer").pid!)).filter((p) => /chrom/i.test(p.command));
    expect(browsers.length).toBeGreaterThan(0);
    for (const browser of browsers) process.kill(browser.pid, "SIGKILL");
    for (const seen of await scrapeUntilOk(run)) expect(seen).toMatchObject({ retryable: true });
    expect((await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA })).status).toBe(200);
  });

  it("auth down: 503, never 401; service again once it is back", async () => {
    // A key the gateway has never checked, so it cannot come from the gateway's cache.
    const apiKey = await run.newAccountKey();
    run.stack.process("auth").kill("SIGKILL");
    const failure = await problemOf(
      await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA }, { "x-api-key": apiKey }),
    );
    expect(failure).toEqual({ status: 503, type: "backend-unavailable", retryable: true });
    await run.stack.waitUntilReady();
    expect(await scrapeUntilOk(run)).not.toContainEqual(expect.objectContaining({ status: 401 }));
  });

  itRestartsEveryService("PGlite", async () => {
    run = await restartEveryService(run, env, dataDir);
  });
});

describe("a model endpoint that fails", () => {
  let run: RunningStack;
  let llm: FakeLlm;
  let mode: "429" | "500" | "hang" = "429";
  beforeAll(async () => {
    llm = await startFakeLlm(() => (mode === "hang" ? reply.hang() : reply.status(Number(mode), 0)));
    // No hybrid pre-fill: the builtin engine could answer the title without asking the model.
    run = await launchStack(PAGES, {
      LLM_BASE_URL: llm.baseUrl,
      LLM_MAX_RETRIES: "2",
      REQUEST_TIMEOUT_MS: String(TEST_TIMEOUT_MS / 6),
      EXTRACT_HYBRID: "off",
    });
  });
  afterAll(async () => {
    await run?.stop();
    await llm?.close();
  });

  for (const failing of ["429", "500"] as const) {
    it(`answering ${failing} every time: bounded retries, then a retryable 503`, async () => {
      mode = failing;
      const before = llm.requests.length;
      const failure = await problemOf(await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA }));
      expect(failure).toEqual({ status: 503, type: "model-unavailable", retryable: true });
      expect(llm.requests.length - before).toBe(3);
      // No retries keep running after the answer.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(llm.requests.length - before).toBe(3);
    });
  }

  it("that hangs: the request deadline ends it with a retryable 504, and nothing piles up", async () => {
    mode = "hang";
    const before = llm.requests.length;
    const failure = await problemOf(await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA }));
    expect(failure).toMatchObject({ status: 504, retryable: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(llm.requests.length - before).toBeLessThanOrEqual(3);
  });
});

describe("on a Postgres of its own", () => {
  let postgres: PrivatePostgres;
  let env: Record<string, string>;
  let dataDir: string;
  let run: RunningStack;
  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    env = { DATABASE_URL: postgres.url };
    dataDir = await mkdtemp(path.join(tmpdir(), "winnow-faults-postgres-"));
    run = await launchStack(PAGES, env, { dataDir, store: "embedded" });
  });
  afterAll(async () => {
    await run?.stop();
    await postgres?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("Postgres restarted under auth: auth reconnects and the key still works, nothing lost", async () => {
    expect((await run.scrape({ url: `${run.site.origin}/ok`, schema: SCHEMA })).status).toBe(200);
    await postgres.restart();
    for (const seen of await scrapeUntilOk(run)) expect(seen).toMatchObject({ status: 503, retryable: true });
  });

  itRestartsEveryService("Postgres", async () => {
    run = await restartEveryService(run, env, dataDir);
  });
});

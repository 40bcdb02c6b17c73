/**
 * A first start on a machine without a browser: no CHROMIUM_PATH that
 * exists, no Playwright browsers, no chromium on PATH. The stack starts, is
 * ready, scrapes static pages and refuses JavaScript pages with a hint. And
 * the other way round: Playwright's own installed Chromium is found.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findBrowser } from "@winnow/renderer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../support/ports.js";
import { startService } from "../support/service-process.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { PAGES } from "./pages.js";

let scratch: string;
/** A PATH with node and nothing else. */
let bareBin: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "winnow-no-browser-"));
  bareBin = path.join(scratch, "bin");
  await mkdir(bareBin);
  await symlink(process.execPath, path.join(bareBin, "node"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("without any browser", () => {
  let run: RunningStack;
  beforeAll(async () => {
    const emptyPlaywright = path.join(scratch, "no-playwright-browsers");
    await mkdir(emptyPlaywright);
    run = await launchStack(PAGES, {
      PATH: bareBin,
      CHROMIUM_PATH: path.join(scratch, "nowhere", "chromium"),
      PLAYWRIGHT_BROWSERS_PATH: emptyPlaywright,
    });
  });
  afterAll(async () => {
    await run?.stop();
  });

  it("starts ready, with one warning that says how to install a browser", async () => {
    expect((await fetch(`${run.stack.gatewayUrl}/readyz`)).status).toBe(200);
    const warnings = run.output.filter((line) => line.startsWith("renderer:") && line.includes('"level":40'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("no browser found");
    expect(warnings[0]).toContain("CHROMIUM_PATH");
    expect(warnings[0]).toContain("apt-get install chromium");
  });

  it("scrapes a page that needs no browser", async () => {
    const res = await run.scrape({
      url: `${run.site.origin}/product`,
      schema: { product_name: "string", price_usd: "number" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ product_name: "Ridgeline Trail Shoe", price_usd: 129.99 });
    expect(res.headers.get("x-winnow-render-path")).toBe("static");
  });

  it("answers browser-unavailable (503, not retryable, with the hint) for a page written by JavaScript", async () => {
    const res = await run.scrape({ url: `${run.site.origin}/js-article`, schema: { headline: "string" } });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.headers.get("retry-after")).toBeNull();
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      type: "https://winnow.dev/problems/browser-unavailable",
      status: 503,
      retryable: false,
    });
    expect(problem.detail).toContain("npx playwright install chromium");
    const forced = await run.scrape({
      url: `${run.site.origin}/product`,
      schema: { product_name: "string" },
      options: { render: "browser" },
    });
    expect(forced.status).toBe(503);
    expect(((await forced.json()) as { type: string }).type).toBe("https://winnow.dev/problems/browser-unavailable");
  });
});

describe("with only Playwright's own browser", () => {
  it("finds it in Playwright's registry and serves", async () => {
    // Lay out a Playwright browsers directory as `npx playwright install chromium` would, its chrome being this
    // machine's Chromium.
    const browsers = path.join(scratch, "playwright-browsers");
    const expected = execFileSync(
      process.execPath,
      ["-e", "process.stdout.write(require('playwright-core').chromium.executablePath())"],
      {
        env: { PLAYWRIGHT_BROWSERS_PATH: browsers },
        encoding: "utf8",
      },
    );
    const installed = findBrowser({ configured: process.env.CHROMIUM_PATH, pathVariable: process.env.PATH }).found;
    if (!installed) throw new Error("this test needs a Chromium on this machine");
    await mkdir(path.dirname(expected), { recursive: true });
    await symlink(installed.executablePath, expected);

    const [port] = (await freePorts(1)) as [number];
    const renderer = await startService(
      "renderer",
      { PATH: bareBin, PLAYWRIGHT_BROWSERS_PATH: browsers, GRPC_PORT: String(port), HOME: scratch },
      `127.0.0.1:${port}`,
    );
    try {
      const found = renderer.output
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry.msg === "browser found");
      expect(found).toMatchObject({ foundBy: "playwright", executablePath: expected });
    } finally {
      await renderer.stop();
    }
  });
});

import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Lookup } from "@winnow/platform";
import { createLogger, loadConfig } from "@winnow/platform";
import type { RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import { type BrowserHost, proxyArg } from "./browser/browser.js";
import { browserMemoryBytes } from "./browser/process-memory.js";
import { rendererConfigShape } from "./config.js";
import type { RenderChoice } from "./render-request.js";
import { createRendering, type Rendering } from "./rendering.js";

/** A resolver with fixed answers, so DNS results (including hostile ones) are under test control. */
export function fixedLookup(answers: Record<string, string[] | (() => string[])>): Lookup {
  return async (hostname) => {
    const answer = answers[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return typeof answer === "function" ? answer() : answer;
  };
}

/** An HTTP server on a loopback address; port 0 picks a free one. */
export async function listen(
  handler: http.RequestListener,
  host = "127.0.0.1",
  port = 0,
): Promise<http.Server & { port: number }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

export type RenderingWithBrowser = Rendering & { browser: BrowserHost };

/** The whole renderer (egress proxy, static fetcher, started browser) with test settings. */
export async function startRendering(env: Record<string, string>, lookup?: Lookup): Promise<RenderingWithBrowser> {
  const config = loadConfig(rendererConfigShape, {
    LOG_LEVEL: "silent",
    WINNOW_SERVICE_TOKEN: TEST_TOKENS.service,
    ...env,
  });
  const rendering = await createRendering(config, createLogger("renderer-test", config.LOG_LEVEL), lookup);
  if (!rendering.browser)
    throw new Error("these tests need a Chromium (CHROMIUM_PATH, Playwright's, or chromium on PATH)");
  await rendering.browser.start();
  return rendering as RenderingWithBrowser;
}

export interface TestRender {
  mode?: RenderChoice;
  waitFor?: string;
  timeoutMs?: number;
}

export function renderWith(rendering: Rendering, url: string, job: TestRender = {}): Promise<RenderResponse> {
  return rendering.renderer.render({
    url: new URL(url),
    mode: job.mode ?? "auto",
    waitFor: job.waitFor ?? "",
    timeoutMs: job.timeoutMs ?? 15_000,
    signal: new AbortController().signal,
  });
}

/** The error a render failed with; fails the test when it succeeded. */
export async function renderFailure(
  rendering: Rendering,
  url: string,
  job: TestRender = {},
): Promise<Error & { type?: string }> {
  const outcome = await renderWith(rendering, url, job).then(
    (response) => new Error(`expected a failure, got HTTP ${response.status} from ${response.finalUrl}`),
    (error: unknown) => error as Error,
  );
  return outcome;
}

/** How far the browser's and this process's memory rose above where it was while `work` ran (sampled every 50 ms). */
export async function memoryGrowthDuring(rendering: Rendering, work: () => Promise<void>): Promise<number> {
  const used = () => browserMemoryBytes(proxyArg(rendering.proxy.url)) + process.memoryUsage().rss;
  const before = used();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, used());
  }, 50);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return peak - before;
}

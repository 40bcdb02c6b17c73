import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startStack, type ServiceName, type Stack } from "../../scripts/src/stack.js";
import { startFixtureSite, type FixturePage, type FixtureSite } from "./fixture-site.js";
import { freePorts } from "./ports.js";

export interface RunningStack {
  stack: Stack;
  ports: Record<ServiceName, number>;
  site: FixtureSite;
  output: string[];
  scrape(body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** The whole stack as processes on free ports, with fixture pages on 127.0.0.1 that its egress guard lets through. */
export async function launchStack(
  pages: Record<string, FixturePage>,
  extraEnv: Record<string, string> = {},
  options: {
    /** More host:port pairs the egress guard lets through. */
    extraEgress?: string[];
    /** A data directory the caller owns (kept on stop), e.g. to restart a stack on the same accounts. */
    dataDir?: string;
  } = {},
): Promise<RunningStack> {
  const site = await startFixtureSite(pages);
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "winnow-e2e-")));
  const [gateway, auth, renderer, extractor] = (await freePorts(4)) as [number, number, number, number];
  const ports = { gateway, auth, renderer, extractor };
  const output: string[] = [];
  // A clean environment: a developer's own LLM or OTEL settings must not change what is tested.
  const stack = await startStack({
    inheritEnv: false,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      WINNOW_DATA_DIR: dataDir,
      WINNOW_EGRESS_ALLOW: [site.hostPort, ...(options.extraEgress ?? [])].join(","),
      LOG_LEVEL: "warn",
      // Tests send bursts through the dev key; the rate-limit tests set their own plans.
      PLAN_REQUESTS_PER_MINUTE: "100000",
      PLAN_MAX_CONCURRENT_SCRAPES: "100",
      ...extraEnv,
    },
    ports,
    onOutput: (service: ServiceName, line: string) => output.push(`${service}: ${line}`),
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${output.join("\n")}`);
  });
  return {
    stack,
    ports,
    site,
    output,
    scrape: (body, headers = { "x-api-key": stack.apiKey }) =>
      fetch(`${stack.gatewayUrl}/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    async stop() {
      await stack.stop();
      await site.close();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}


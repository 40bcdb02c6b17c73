/**
 * A stack that belongs to one program run (a test, a benchmark, another
 * language's test suite): free ports, a fresh data directory unless one is
 * given, and a clean environment, so a developer's own LLM or OTEL settings
 * never change what is measured or tested. Plans are generous: callers send
 * bursts through the dev key; rate-limit tests set their own.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import { freePorts } from "./ports.js";
import { type ServiceName, type Stack, type StackOptions, startStack } from "./stack.js";

/**
 * The services' embedded databases in the data directory (auth's accounts, the extractor's templates, the gateway's and
 * the jobs worker's stores), each a copy of a pristine cluster rather than made by initdb at start.
 */
const EMBEDDED_DATABASES = ["auth-db", "extractor-db", "gateway-db", "jobs-db"];

export interface ThrowawayStack extends Stack {
  ports: Record<ServiceName, number>;
  /** Where each service serves /metrics on 127.0.0.1. */
  metricsPorts: Record<ServiceName, number>;
  dataDir: string;
}

export interface ThrowawayStackOptions {
  env?: NodeJS.ProcessEnv;
  nodeArgs?: StackOptions["nodeArgs"];
  /** A data directory the caller owns (kept on stop), e.g. to restart on the same accounts. */
  dataDir?: string;
  onOutput?: (service: ServiceName, line: string) => void;
  /** How long the services may take to be ready (a test derives it from its own limit; a long benchmark on a loaded machine waits longer). */
  readyTimeoutMs?: StackOptions["readyTimeoutMs"];
}

export async function startThrowawayStack(options: ThrowawayStackOptions = {}): Promise<ThrowawayStack> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "winnow-stack-")));
  const free = await freePorts(10);
  const at = (i: number) => free[i]!;
  const ports = { gateway: at(0), auth: at(1), renderer: at(2), extractor: at(3), jobs: at(4) };
  const metricsPorts = { gateway: at(5), auth: at(6), renderer: at(7), extractor: at(8), jobs: at(9) };
  const removeData = () => (options.dataDir ? Promise.resolve() : rm(dataDir, { recursive: true, force: true }));
  // A service on a Postgres server (DATABASE_URL) leaves its copy unused.
  await Promise.all(EMBEDDED_DATABASES.map((name) => seedPgliteDirectory(path.join(dataDir, name))));
  const stack = await startStack({
    inheritEnv: false,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      WINNOW_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      PLAN_REQUESTS_PER_MINUTE: "1000000",
      PLAN_MAX_CONCURRENT_SCRAPES: "1000",
      ...options.env,
    },
    nodeArgs: options.nodeArgs,
    readyTimeoutMs: options.readyTimeoutMs,
    ports,
    metricsPorts,
    onOutput: options.onOutput,
  }).catch(async (error: unknown) => {
    await removeData();
    throw error;
  });
  return {
    ...stack,
    ports,
    metricsPorts,
    dataDir,
    async stop() {
      await stack.stop();
      await removeData();
    },
  };
}

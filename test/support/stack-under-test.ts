import { randomUUID } from "node:crypto";
import { createClient, promiseClient } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { ServiceName } from "../../scripts/src/stack.js";
import { startThrowawayStack, type ThrowawayStack } from "../../scripts/src/throwaway-stack.js";
import { type FixturePage, type FixtureSite, startFixtureSite } from "./fixture-site.js";
import { createStackDatabase, type StackDatabase } from "./stack-database.js";
import { TEST_TIMEOUT_MS } from "./test-timeout.js";

export interface RunningStack {
  stack: ThrowawayStack;
  ports: Record<ServiceName, number>;
  site: FixtureSite;
  output: string[];
  scrape(body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** A new account's API key, one the gateway has never checked (made at auth with the gateway's credential). */
  newAccountKey(): Promise<string>;
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
    /**
     * Where the services keep their tables: a database of the stack's own on the Postgres server (the default; as
     * deployments run), or the embedded PGlite databases of a new user's `npm start`, for the tests of that path.
     * A database URL in `extraEnv` is kept either way.
     */
    store?: "postgres" | "embedded";
  } = {},
): Promise<RunningStack> {
  const site = await startFixtureSite(pages);
  const database: StackDatabase | undefined = options.store === "embedded" ? undefined : await createStackDatabase();
  const output: string[] = [];
  const stack = await startThrowawayStack({
    dataDir: options.dataDir,
    // A hook's limit (stacks start in beforeAll): a slow machine's WINNOW_TEST_TIMEOUT_MS gives them longer.
    readyTimeoutMs: 2 * TEST_TIMEOUT_MS,
    env: {
      WINNOW_EGRESS_ALLOW: [site.hostPort, ...(options.extraEgress ?? [])].join(","),
      ...(database && { DATABASE_URL: database.url, GATEWAY_DATABASE_URL: database.url }),
      ...extraEnv,
    },
    onOutput: (service: ServiceName, line: string) => output.push(`${service}: ${line}`),
  }).catch(async (error: Error) => {
    await Promise.all([site.close(), database?.drop()]);
    throw new Error(`${error.message}\n${output.join("\n")}`);
  });
  return {
    stack,
    ports: stack.ports,
    site,
    output,
    scrape: (body, headers = { "x-api-key": stack.apiKey }) =>
      fetch(`${stack.gatewayUrl}/scrape`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    async newAccountKey() {
      const auth = promiseClient(
        createClient(AuthServiceClient, `127.0.0.1:${stack.ports.auth}`, stack.callerTokens.gateway),
      );
      try {
        return (await auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" })).apiKey;
      } finally {
        auth.grpc.close();
      }
    },
    async stop() {
      await stack.stop();
      await Promise.all([site.close(), database?.drop()]);
    },
  };
}

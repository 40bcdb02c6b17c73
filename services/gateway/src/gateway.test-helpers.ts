/**
 * The gateway in this process over real HTTP, on a real auth gRPC server
 * (PGlite) that counts its ValidateKey calls, with the limits in memory or in
 * Redis under a key prefix of its own (deleted afterwards).
 */
import { randomBytes } from "node:crypto";
import type * as grpc from "@grpc/grpc-js";
import { type AuthClient, createClient, createLogger, promiseClient, startGrpcServer } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { Redis } from "ioredis";
import { TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import { authServiceBinding } from "../../auth/src/auth-service.js";
import { AuthStore } from "../../auth/src/auth-store.js";
import { openTestDatabase, testCipher } from "../../auth/src/databases.test-helpers.js";
import { planLookup } from "../../auth/src/plans.js";
import { RevocationFeed } from "../../auth/src/revocation-feed.js";
import { type AppOptions, createGateway } from "./app.js";
import { connectBackends } from "./backends.js";
import { Drain } from "./http/drain.js";
import { startHttpServer } from "./http/http-server.js";
import { createLimiterFactory } from "./http/rate-limits.js";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const logger = createLogger("gateway-test", "silent");

export interface TestGateway {
  url: string;
  /** An auth client of the test's own, to create accounts. */
  auth: AuthClient;
  /** ValidateKey calls auth has answered. */
  validations(): number;
  close(): Promise<void>;
}

type GatewayOptions = Partial<Pick<AppOptions, "loginAttemptsPer15Min" | "keyFailuresPerMinute" | "trustProxy">> & {
  redisUrl?: string;
};

/** A real auth gRPC server on a throwaway PGlite database, every key on `plan`; ValidateKey calls counted. */
export async function startTestAuth(plan: { requestsPerMinute: number; maxConcurrentScrapes: number }) {
  const db = await openTestDatabase("pglite");
  const store = new AuthStore(db.database, testCipher);
  const binding = authServiceBinding({
    store,
    revocations: new RevocationFeed(store, 0, logger),
    plans: planLookup({
      PLAN_REQUESTS_PER_MINUTE: plan.requestsPerMinute,
      PLAN_MAX_CONCURRENT_SCRAPES: plan.maxConcurrentScrapes,
    }),
    logger,
    sessionTtlMs: 60_000,
  });
  let validations = 0;
  const validateKey = binding.implementation.validateKey as grpc.handleUnaryCall<unknown, unknown>;
  binding.implementation.validateKey = (call, callback) => {
    validations++;
    validateKey(call, callback);
  };
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    callers: { gateway: TEST_TOKENS.gateway, admin: TEST_TOKENS.admin },
    services: [binding],
  });
  server.setReady(true);
  const addr = `127.0.0.1:${server.port}`;
  return {
    addr,
    /** An auth client with the admin's token, to create accounts. */
    admin: promiseClient(createClient(AuthServiceClient, addr, TEST_TOKENS.admin)),
    validations: () => validations,
    async close() {
      await server.shutdown(1_000);
      await db.dispose();
    },
  };
}

export async function startTestGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  const testAuth = await startTestAuth({ requestsPerMinute: 1_000, maxConcurrentScrapes: 2 });
  const authAddr = testAuth.addr;
  // Renderer and extractor are never called by these tests.
  const backends = connectBackends(
    { auth: authAddr, renderer: "127.0.0.1:9", extractor: "127.0.0.1:9" },
    { gateway: TEST_TOKENS.gateway, service: TEST_TOKENS.service },
  );
  const keyPrefix = `winnow-test-${randomBytes(6).toString("hex")}:`;
  const limiters = createLimiterFactory({ redisUrl: options.redisUrl, keyPrefix, logger });
  const gateway = createGateway({
    backends,
    keyCache: { size: 100, maxAgeMs: 60_000 },
    usageFlushMs: 60_000,
    drain: new Drain(),
    logger,
    requestTimeoutMs: 30_000,
    maxBodyBytes: 65_536,
    limiters,
    loginAttemptsPer15Min: options.loginAttemptsPer15Min ?? 10,
    keyFailuresPerMinute: options.keyFailuresPerMinute ?? 60,
    trustProxy: options.trustProxy ?? false,
  });
  const http = await startHttpServer(gateway.app, "127.0.0.1", 0);
  const auth = testAuth.admin;
  return {
    url: `http://127.0.0.1:${http.port}`,
    auth,
    validations: testAuth.validations,
    async close() {
      await http.close(1_000);
      await gateway.close();
      backends.close();
      auth.grpc.close();
      await limiters.close();
      await testAuth.close();
      if (options.redisUrl) await deleteKeys(options.redisUrl, keyPrefix);
    },
  };
}

async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}

/** A dashboard form as a browser would send it: the page's cookie and token, from this origin. */
export async function dashboardVisit(url: string, path = "/dashboard/login", cookie = "") {
  const res = await fetch(`${url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  const set = res.headers.getSetCookie().find((c) => c.startsWith("winnow_csrf="));
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await res.text())?.[1];
  return { cookie: set ? set.split(";")[0]! : cookie, csrf: csrf! };
}

export function postForm(
  url: string,
  path: string,
  cookie: string,
  form: Record<string, string>,
  headers: Record<string, string> = { origin: url },
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
    body: new URLSearchParams(form),
  });
}

/**
 * The gateway's key cache against a real auth gRPC server (PGlite) through a
 * TCP proxy that can break the link, counting how often auth is asked so a
 * hit is told from a miss; and against two auth replicas sharing Postgres.
 */
import { randomUUID } from "node:crypto";
import type * as grpc from "@grpc/grpc-js";
import {
  type AuthClient,
  createClient,
  promiseClient,
  type RunningGrpcServer,
  startGrpcServer,
} from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_TOKENS } from "../../../../test/support/caller-tokens.js";
import { startTcpProxy, type TcpProxy } from "../../../../test/support/tcp-proxy.js";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import { authServiceBinding } from "../../../auth/src/auth-service.js";
import { AuthStore } from "../../../auth/src/auth-store.js";
import {
  openTestDatabase,
  silentLogger,
  type TestDatabase,
  testCipher,
} from "../../../auth/src/databases.test-helpers.js";
import { planLookup } from "../../../auth/src/plans.js";
import { RevocationFeed } from "../../../auth/src/revocation-feed.js";
import { KeyCheck } from "./key-check.js";

const LEASE_MS = 300;
/** Auth's callers: the key check runs with the gateway's token, the test's own calls (rotations) with the admin's. */
const AUTH_CALLERS = { gateway: TEST_TOKENS.gateway, admin: TEST_TOKENS.admin };

/** An auth service (one replica) on the test's database, with its own revocation feed. */
function authBinding(db: TestDatabase, leaseMs: number) {
  const store = new AuthStore(db.database, testCipher);
  return authServiceBinding({
    store,
    revocations: new RevocationFeed(store, leaseMs, silentLogger),
    plans: planLookup({ PLAN_REQUESTS_PER_MINUTE: 60, PLAN_MAX_CONCURRENT_SCRAPES: 2 }),
    logger: silentLogger,
    sessionTtlMs: 60_000,
  });
}

describe.each([LEASE_MS, 0])("KeyCheck with auth's lease at %i ms", (leaseMs) => {
  let db: TestDatabase;
  let server: RunningGrpcServer;
  let link: TcpProxy;
  let admin: AuthClient;
  let gatewaySide: AuthClient;
  let keys: KeyCheck;
  let validations = 0;

  beforeAll(async () => {
    db = await openTestDatabase("pglite");
    const binding = authBinding(db, leaseMs);
    // Both ways of asking auth about a key are counted.
    for (const method of ["validateKey", "getKey"] as const) {
      const asks = binding.implementation[method] as grpc.handleUnaryCall<unknown, unknown>;
      binding.implementation[method] = (
        call: grpc.ServerUnaryCall<unknown, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        validations++;
        asks(call, callback);
      };
    }
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
      callers: AUTH_CALLERS,
      services: [binding],
    });
    server.setReady(true);
    link = await startTcpProxy(server.port);
    admin = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${server.port}`, TEST_TOKENS.admin));
    gatewaySide = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${link.port}`, TEST_TOKENS.gateway));
    keys = new KeyCheck(gatewaySide, { size: 100, maxAgeMs: 60_000, logger: silentLogger });
  });
  afterAll(async () => {
    keys?.close();
    gatewaySide?.grpc.close();
    admin?.grpc.close();
    await link?.close();
    await server?.shutdown(1000);
    await db?.dispose();
  });
  beforeEach(() => link.restore());

  const account = () => admin.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
  /** A check, retried while the channel reconnects after a break (a real gateway answers 503 meanwhile). */
  const check = async (apiKey: string) => {
    for (;;) {
      try {
        return (await keys.check(apiKey, { deadline: new Date(Date.now() + TEST_TIMEOUT_MS / 4) })).key;
      } catch (error) {
        if ((error as { type?: string }).type !== "backend-unavailable") throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  /** Validations auth answered for `work`. */
  const asked = async (work: () => Promise<unknown>) => {
    const before = validations;
    await work();
    return validations - before;
  };
  /** Until the feed has proved the cache current again (a first answered ping after a start or a break). */
  const untilCached = async (apiKey: string) => {
    await check(apiKey);
    while ((await asked(() => check(apiKey))) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  if (leaseMs > 0) {
    it("asks auth once for a valid key, then answers from memory", async () => {
      const created = await account();
      await untilCached(created.apiKey);
      expect(
        await asked(async () =>
          expect(await keys.check(created.apiKey, {})).toMatchObject({ key: { keyId: created.keyId }, cached: true }),
        ),
      ).toBe(0);
    });

    it("refuses a rotated key as soon as the rotation has returned", async () => {
      const created = await account();
      await untilCached(created.apiKey);
      const rotated = await admin.rotateKey({ accountId: created.account!.id });
      expect(await asked(async () => expect(await check(created.apiKey)).toBeUndefined())).toBe(1);
      expect(await check(rotated.apiKey)).toMatchObject({ keyId: rotated.keyId });
    });

    it("answers a key by its id from memory, with its plan, until a rotation revokes it", async () => {
      const created = await account();
      const checkId = () => keys.checkId(created.keyId, { deadline: new Date(Date.now() + TEST_TIMEOUT_MS / 4) });
      await untilCached(created.apiKey);
      expect(await asked(checkId)).toBe(1);
      expect(
        await asked(async () =>
          expect(await checkId()).toEqual({
            accountId: created.account!.id,
            keyId: created.keyId,
            limits: { plan: "default", requestsPerMinute: 60, maxConcurrentScrapes: 2 },
          }),
        ),
      ).toBe(0);
      await admin.rotateKey({ accountId: created.account!.id });
      expect(await asked(async () => expect(await checkId()).toBeUndefined())).toBe(1);
    });

    it("forgets every key when the link to auth is cut, and caches again once the feed is back", async () => {
      const created = await account();
      await untilCached(created.apiKey);
      link.cut();
      await new Promise((resolve) => setTimeout(resolve, 50));
      link.restore();
      // The first check after the break goes to auth: the cache was emptied.
      expect(await asked(() => check(created.apiKey))).toBe(1);
      await untilCached(created.apiKey);
    });

    it("says a short break at debug only, and a lasting loss once at warn with its reason and no stack", async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
      const watched = new KeyCheck(gatewaySide, { size: 100, maxAgeMs: 60_000, logger });
      const until = async (msg: string, count = 1) => {
        while (lines.filter((l) => l.msg === msg).length < count) await new Promise((r) => setTimeout(r, 50));
      };
      try {
        const { apiKey } = await account();
        const hop = () => ({ deadline: new Date(Date.now() + TEST_TIMEOUT_MS / 4) });
        while (!(await watched.check(apiKey, hop())).cached) await new Promise((r) => setTimeout(r, 20));
        link.cut();
        link.restore();
        await until("revocation feed reconnected");
        expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
        link.cut();
        const lost = "key cache off: the revocation feed is lost; every key is checked with auth until it is back";
        await until(lost);
        link.restore();
        await until("key cache on: the revocation feed is back");
        const loud = lines.filter((l) => (l.level as number) >= 40);
        expect(loud).toEqual([expect.objectContaining({ msg: lost, reason: expect.any(String) })]);
        expect(loud[0]).not.toHaveProperty("err");
      } finally {
        watched.close();
      }
    });

    it("stops trusting its cache within a lease when the link goes silent, and refuses a key revoked meanwhile", async () => {
      const created = await account();
      await untilCached(created.apiKey);
      link.blackhole();
      const rotated = await admin.rotateKey({ accountId: created.account!.id });
      // Auth is unreachable through the silent link and the cache is no longer trusted: no answer from memory.
      await expect(keys.check(created.apiKey, { deadline: new Date(Date.now() + 300) })).rejects.toMatchObject({
        type: "deadline-exceeded",
      });
      link.restore();
      expect(await check(created.apiKey)).toBeUndefined();
      expect(await check(rotated.apiKey)).toMatchObject({ keyId: rotated.keyId });
    });
  } else {
    it("asks auth for every key when auth's lease is 0", async () => {
      const created = await account();
      for (let i = 0; i < 5; i++) await check(created.apiKey);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await asked(() => check(created.apiKey))).toBe(1);
    });
  }

  it("never caches an invalid key", async () => {
    const created = await account();
    await admin.rotateKey({ accountId: created.account!.id });
    expect(await asked(() => check(created.apiKey))).toBe(1);
    expect(await asked(() => check(created.apiKey))).toBe(1);
  });
});

describe("KeyCheck with two auth replicas on one Postgres", () => {
  let db: TestDatabase;
  const servers: RunningGrpcServer[] = [];
  let replicaA: AuthClient;
  let replicaB: AuthClient;
  let keys: KeyCheck;

  beforeAll(async () => {
    db = await openTestDatabase("postgres");
    for (let i = 0; i < 2; i++) {
      const server = await startGrpcServer({
        host: "127.0.0.1",
        port: 0,
        logger: silentLogger,
        callers: AUTH_CALLERS,
        services: [authBinding(db, LEASE_MS)],
      });
      server.setReady(true);
      servers.push(server);
    }
    replicaA = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${servers[0]!.port}`, TEST_TOKENS.admin));
    replicaB = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${servers[1]!.port}`, TEST_TOKENS.gateway));
    keys = new KeyCheck(replicaB, { size: 100, maxAgeMs: 60_000, logger: silentLogger });
  });
  afterAll(async () => {
    keys?.close();
    replicaA?.grpc.close();
    replicaB?.grpc.close();
    await Promise.all(servers.map((server) => server.shutdown(1000)));
    await db?.dispose();
  });

  it("refuses a key that the other replica rotated, as soon as the rotation has returned", async () => {
    const created = await replicaA.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
    while (!(await keys.check(created.apiKey, {})).cached) await new Promise((resolve) => setTimeout(resolve, 20));
    await replicaA.rotateKey({ accountId: created.account!.id });
    expect(await keys.check(created.apiKey, {})).toEqual({ key: undefined, cached: false });
  });
});

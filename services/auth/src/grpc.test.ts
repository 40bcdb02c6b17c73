import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import {
  type AuthClient,
  checkHealth,
  createClient,
  fromGrpcError,
  promiseClient,
  type RunningGrpcServer,
  startGrpcServer,
  WinnowError,
} from "@winnow/platform";
import { AuthServiceClient, InvalidKeyReason } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import { authServiceBinding } from "./auth-service.js";
import { AuthStore } from "./auth-store.js";
import { BACKENDS, openTestDatabase, silentLogger, type TestDatabase, testCipher } from "./databases.test-helpers.js";
import { planLookup } from "./plans.js";
import { RevocationFeed } from "./revocation-feed.js";

const LIMITS = { plan: "default", requestsPerMinute: 120, maxConcurrentScrapes: 3 };
const LEASE_MS = 200;

describe.each(BACKENDS)("AuthService over gRPC on %s", (backend) => {
  let db: TestDatabase;
  let server: RunningGrpcServer;
  let client: AuthClient;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    const store = new AuthStore(db.database, testCipher);
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
      callers: { gateway: TEST_TOKENS.gateway, admin: TEST_TOKENS.admin },
      services: [
        authServiceBinding({
          store,
          revocations: new RevocationFeed(store, LEASE_MS, silentLogger),
          plans: planLookup({ PLAN_REQUESTS_PER_MINUTE: 120, PLAN_MAX_CONCURRENT_SCRAPES: 3 }),
          logger: silentLogger,
          sessionTtlMs: 60_000,
        }),
      ],
    });
    server.setReady(true);
    // The operator's credential: these tests call every RPC.
    client = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${server.port}`, TEST_TOKENS.admin));
  });
  afterAll(async () => {
    client?.grpc.close();
    await server?.shutdown(1000);
    await db?.dispose();
  });

  const validate = (apiKey: string) => client.validateKey({ apiKey });
  const createAccount = (email: string) => client.createAccount({ email, password: "" });
  const rotateKey = (accountId: string) => client.rotateKey({ accountId });
  const failure = async (call: Promise<unknown>): Promise<WinnowError> => {
    const error = await call.then(
      () => expect.fail("the call succeeded"),
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(WinnowError);
    return error as WinnowError;
  };

  it("lets the gateway's credential do what the dashboard and scrapes need, never list accounts or rotate any key", async () => {
    const { account } = await createAccount(`${randomUUID()}@example.com`);
    const as = (token: string) => promiseClient(createClient(AuthServiceClient, `127.0.0.1:${server.port}`, token));
    const gateway = as(TEST_TOKENS.gateway);
    const service = as(TEST_TOKENS.service);
    const code = async (call: Promise<unknown>) => ((await failure(call)).cause as grpc.ServiceError).code;
    try {
      expect(await gateway.validateKey({ apiKey: "wnw_x" })).toMatchObject({ valid: false });
      expect(await gateway.createAccount({ email: `${randomUUID()}@example.com`, password: "" })).toHaveProperty(
        "apiKey",
      );
      expect(await code(gateway.listAccounts({}))).toBe(grpc.status.PERMISSION_DENIED);
      expect(await code(gateway.rotateKey({ accountId: account!.id }))).toBe(grpc.status.PERMISSION_DENIED);
      // The renderer's and the extractor's credential is not one auth knows: nothing at all.
      for (const call of [service.listAccounts({}), service.rotateKey({ accountId: account!.id })]) {
        expect(await code(call)).toBe(grpc.status.UNAUTHENTICATED);
      }
      expect(await code(service.validateKey({ apiKey: "wnw_x" }))).toBe(grpc.status.UNAUTHENTICATED);
      expect(await code(service.recordUsageBatch({ usage: [] }))).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      gateway.grpc.close();
      service.grpc.close();
    }
  });

  it("reports SERVING", async () => {
    expect(await checkHealth(`127.0.0.1:${server.port}`, "winnow.auth.v1.AuthService")).toBe("SERVING");
  });

  it("creates an account, validates its key, rotates it and rejects the old key at once", async () => {
    const email = `${randomUUID()}@Example.com`;
    const created = await createAccount(`  ${email} `);
    expect(created.account).toMatchObject({ email: email.toLowerCase(), limits: LIMITS });
    expect(created.account?.createdAt).toBeInstanceOf(Date);
    const accountId = created.account!.id;

    expect(await validate(created.apiKey)).toEqual({
      valid: true,
      reason: InvalidKeyReason.INVALID_KEY_REASON_UNSPECIFIED,
      accountId,
      keyId: created.keyId,
      limits: LIMITS,
    });

    const rotated = await rotateKey(accountId);
    expect(rotated.apiKey).not.toBe(created.apiKey);
    expect(await validate(created.apiKey)).toMatchObject({
      valid: false,
      reason: InvalidKeyReason.INVALID_KEY_REASON_UNKNOWN,
      accountId: "",
    });
    expect(await validate(rotated.apiKey)).toMatchObject({ valid: true, accountId, keyId: rotated.keyId });
  });

  it("answers a key by its id: valid with its plan until a rotation revokes it", async () => {
    const created = await createAccount(`${randomUUID()}@example.com`);
    const accountId = created.account!.id;
    expect(await client.getKey({ keyId: created.keyId })).toEqual({ valid: true, accountId, limits: LIMITS });
    const rotated = await rotateKey(accountId);
    expect(await client.getKey({ keyId: created.keyId })).toEqual({ valid: false, accountId: "" });
    expect(await client.getKey({ keyId: rotated.keyId })).toMatchObject({ valid: true, accountId });
    expect(await client.getKey({ keyId: "00000000000" })).toEqual({ valid: false, accountId: "" });
    expect((await failure(client.getKey({ keyId: "not a key id" }))).type).toBe("invalid-request");
  });

  it.each([
    ["an empty key", ""],
    ["a key with a wrong checksum", "wnw_00000000000_0000000000000000000000000000"],
    ["a huge key", `wnw_${"a".repeat(100_000)}`],
    ["a unicode key", "wnw_ключ😀"],
  ])("answers MALFORMED for %s", async (_, apiKey) => {
    expect(await validate(apiKey)).toMatchObject({
      valid: false,
      reason: InvalidKeyReason.INVALID_KEY_REASON_MALFORMED,
    });
  });

  it("answers already-exists for a duplicate email, whatever its case", async () => {
    const email = `${randomUUID()}@example.com`;
    await createAccount(email);
    const error = await failure(createAccount(email.toUpperCase()));
    expect(error.type).toBe("already-exists");
  });

  it.each([
    ["empty", ""],
    ["without a domain", "someone@"],
    ["not an address", "not an email"],
    ["too long", `${"a".repeat(250)}@example.com`],
  ])("answers invalid-request for an email that is %s", async (_, email) => {
    const error = await failure(createAccount(email));
    expect(error.type).toBe("invalid-request");
    expect(error.violations[0]?.path).toBe("/email");
  });

  it("answers not-found when rotating the key of an unknown account", async () => {
    expect((await failure(rotateKey(randomUUID()))).type).toBe("not-found");
  });

  it("answers invalid-request when rotating with a malformed account id", async () => {
    const error = await failure(rotateKey("42"));
    expect(error.type).toBe("invalid-request");
    expect(error.violations[0]?.path).toBe("/account_id");
  });

  describe("dashboard sessions", () => {
    const password = "correct horse battery";
    const logIn = (email: string, pass: string) => client.logIn({ email, password: pass });
    const getAccount = (sessionToken: string) => client.getAccount({ sessionToken });

    it("signs up, logs in, shows the key, rotates it by session and logs out", async () => {
      const email = `${randomUUID()}@example.com`;
      const created = await client.createAccount({ email, password });
      const { session } = await logIn(email.toUpperCase(), password);
      expect(session?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(session!.expiresAt!.getTime()).toBeGreaterThan(Date.now());

      const shown = await getAccount(session!.token);
      expect(shown).toMatchObject({
        account: { id: created.account!.id, email },
        keyId: created.keyId,
        apiKey: created.apiKey,
      });
      expect(shown.keyCreatedAt).toBeInstanceOf(Date);

      const rotated = await client.rotateSessionKey({ sessionToken: session!.token });
      expect(await validate(created.apiKey)).toMatchObject({ valid: false });
      expect(await getAccount(session!.token)).toMatchObject({ keyId: rotated.keyId, apiKey: rotated.apiKey });

      await client.logOut({ sessionToken: session!.token });
      expect((await failure(getAccount(session!.token))).type).toBe("unauthorized");
      expect((await failure(client.rotateSessionKey({ sessionToken: session!.token }))).type).toBe("unauthorized");
      expect(await validate(rotated.apiKey)).toMatchObject({ valid: true });
    });

    it("answers the same unauthorized for a wrong password, an unknown email and an account without a password", async () => {
      const email = `${randomUUID()}@example.com`;
      await client.createAccount({ email, password });
      const keyOnly = `${randomUUID()}@example.com`;
      await createAccount(keyOnly);
      const messages = new Set<string>();
      for (const [address, pass] of [
        [email, "wrong password!"],
        [`${randomUUID()}@example.com`, password],
        [keyOnly, ""],
        ["not an email", password],
      ] as const) {
        const error = await failure(logIn(address, pass));
        expect(error.type).toBe("unauthorized");
        messages.add(error.message);
      }
      expect([...messages]).toEqual(["The email or password is incorrect."]);
    });

    it.each([
      ["a made-up token", "x".repeat(43)],
      ["an empty token", ""],
    ])("answers unauthorized for %s", async (_, token) => {
      expect((await failure(getAccount(token))).type).toBe("unauthorized");
    });

    it("answers invalid-request for a password that is too short", async () => {
      const error = await failure(client.createAccount({ email: `${randomUUID()}@example.com`, password: "short" }));
      expect(error.type).toBe("invalid-request");
      expect(error.violations[0]?.path).toBe("/password");
    });

    it.each([
      ["ten spaces", " ".repeat(10), /Repeated characters/],
      ["a common password", "password123", /commonly used password/],
      ["a keyboard row", "qwertyuiop", /easy to guess/],
      ["a sequence", "abcdefghij", /character sequences/],
      ["the email itself", "", /easy to guess/],
    ])("refuses %s as a password, saying why", async (_, chosen, why) => {
      const email = `${randomUUID().slice(0, 12)}@example.com`;
      const error = await failure(client.createAccount({ email, password: chosen || email }));
      expect(error.type).toBe("invalid-request");
      expect(error.violations).toEqual([{ path: "/password", description: expect.stringMatching(why) }]);
      expect(error.message).toMatch(/^password is too easy to guess/);
    });
  });

  describe("usage", () => {
    it("adds up scrapes and tokens per key and day, by session and by account, and lists accounts with totals", async () => {
      const email = `${randomUUID()}@example.com`;
      const created = await client.createAccount({ email, password: "usage password" });
      const record = (scrapes: number, tokensIn: number, tokensOut: number) =>
        client.recordUsage({ keyId: created.keyId, scrapes, tokensIn, tokensOut });
      await Promise.all([record(1, 100, 10), record(1, 50, 5), record(1, 0, 0)]);

      const today = new Date().toISOString().slice(0, 10);
      const byAccount = await client.getUsage({ sessionToken: "", accountId: created.account!.id, days: 0 });
      expect(byAccount.days).toEqual([
        {
          day: today,
          keyId: created.keyId,
          scrapes: 3,
          tokensIn: 150,
          tokensOut: 15,
          byPath: { cache: 0, template: 0, builtin: 0, model: 0 },
        },
      ]);
      const { session } = await client.logIn({ email, password: "usage password" });
      const bySession = await client.getUsage({ sessionToken: session!.token, accountId: "", days: 7 });
      expect(bySession.days).toEqual(byAccount.days);

      const { accounts } = await client.listAccounts({});
      expect(accounts.find((summary) => summary.account?.id === created.account!.id)).toMatchObject({
        account: { email },
        keyId: created.keyId,
        scrapes: 3,
        tokensIn: 150,
        tokensOut: 15,
      });
    });

    it("answers not-found for usage of an unknown key and invalid-request for a malformed one", async () => {
      const record = (keyId: string) => client.recordUsage({ keyId, scrapes: 1, tokensIn: 0, tokensOut: 0 });
      expect((await failure(record("00000000000"))).type).toBe("not-found");
      expect((await failure(record("nope"))).type).toBe("invalid-request");
    });

    it("adds a batch of several keys and days in one call, and names the keys that do not exist", async () => {
      const first = await createAccount(`${randomUUID()}@example.com`);
      const second = await createAccount(`${randomUUID()}@example.com`);
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      // Each batch entry's scrapes: one from cache, the rest from the model.
      const entry = (keyId: string, day: string, scrapes: number) => ({
        keyId,
        day,
        scrapes,
        tokensIn: scrapes * 10,
        tokensOut: scrapes,
        byPath: { cache: 1, template: 0, builtin: 0, model: scrapes - 1 },
      });
      const answer = await client.recordUsageBatch({
        usage: [
          entry(first.keyId, today, 3),
          entry(first.keyId, yesterday, 2),
          entry(second.keyId, today, 1),
          entry("00000000000", today, 5),
        ],
      });
      expect(answer.unknownKeyIds).toEqual(["00000000000"]);
      await client.recordUsageBatch({ usage: [entry(first.keyId, today, 1)] });
      const usage = async (accountId: string) => (await client.getUsage({ sessionToken: "", accountId, days: 7 })).days;
      expect(await usage(first.account!.id)).toEqual([
        {
          day: today,
          keyId: first.keyId,
          scrapes: 4,
          tokensIn: 40,
          tokensOut: 4,
          byPath: { cache: 2, template: 0, builtin: 0, model: 2 },
        },
        {
          day: yesterday,
          keyId: first.keyId,
          scrapes: 2,
          tokensIn: 20,
          tokensOut: 2,
          byPath: { cache: 1, template: 0, builtin: 0, model: 1 },
        },
      ]);
      expect(await usage(second.account!.id)).toEqual([
        {
          day: today,
          keyId: second.keyId,
          scrapes: 1,
          tokensIn: 10,
          tokensOut: 1,
          byPath: { cache: 1, template: 0, builtin: 0, model: 0 },
        },
      ]);
    });

    it("answers invalid-request for a batch entry with a malformed key id or day, and records none of it", async () => {
      const created = await createAccount(`${randomUUID()}@example.com`);
      const batch = (day: string) =>
        client.recordUsageBatch({
          usage: [
            { keyId: created.keyId, day: new Date().toISOString().slice(0, 10), scrapes: 1, tokensIn: 0, tokensOut: 0 },
            { keyId: created.keyId, day, scrapes: 1, tokensIn: 0, tokensOut: 0 },
          ],
        });
      const error = await failure(batch("2026-13-40"));
      expect(error.type).toBe("invalid-request");
      expect(error.violations[0]?.path).toBe("/usage/1/day");
      expect((await client.getUsage({ sessionToken: "", accountId: created.account!.id, days: 7 })).days).toEqual([]);
    });

    it("answers invalid-request unless exactly one of session and account is given", async () => {
      const usage = (sessionToken: string, accountId: string) => client.getUsage({ sessionToken, accountId, days: 0 });
      expect((await failure(usage("", ""))).type).toBe("invalid-request");
      expect((await failure(usage("token", randomUUID()))).type).toBe("invalid-request");
    });
  });
  describe("revocation feed", () => {
    type Message = { revokedKeyIds: string[]; cursor: string; pong: number; leaseMs: number };
    /** A WatchRevocations stream with its messages so far, and a way to wait for one. */
    const watch = (afterCursor: string) => {
      const call = client.grpc.watchRevocations();
      const messages: Message[] = [];
      let failed: WinnowError | undefined;
      call.on("data", (message: Message) => messages.push(message));
      call.on("error", (error: grpc.ServiceError) => (failed = fromGrpcError(error)));
      call.write({ afterCursor, ping: 1 });
      const next = async (match: (m: Message) => boolean) => {
        for (;;) {
          const found = messages.find(match);
          if (found || failed) return found;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      return {
        call,
        messages,
        next,
        ping: (ping: number) => call.write({ afterCursor: "", ping }),
        failure: () => failed,
      };
    };

    it("answers pings with the lease, and pushes the keys a rotation revokes before the rotation returns", async () => {
      const feed = watch("");
      const first = await feed.next((m) => m.pong === 1);
      expect(first).toMatchObject({ revokedKeyIds: [], leaseMs: LEASE_MS });
      const created = await createAccount(`${randomUUID()}@example.com`);
      await rotateKey(created.account!.id);
      // The push does not wait for a ping: it is in before the rotation has waited out the lease.
      expect(feed.messages.flatMap((m) => m.revokedKeyIds)).toEqual([created.keyId]);
      feed.ping(2);
      const answer = await feed.next((m) => m.pong === 2);
      expect(answer!.revokedKeyIds).toEqual([]);
      expect(BigInt(answer!.cursor)).toBeGreaterThan(BigInt(first!.cursor));
      feed.call.end();
    });

    it("resumes after a cursor: revocations made while a gateway was away are sent first", async () => {
      const feed = watch("");
      const { cursor } = (await feed.next((m) => m.pong === 1))!;
      feed.call.cancel();
      const created = await createAccount(`${randomUUID()}@example.com`);
      await rotateKey(created.account!.id);
      await rotateKey(created.account!.id);
      const resumed = watch(cursor);
      const answer = await resumed.next((m) => m.pong === 1);
      expect(resumed.messages.flatMap((m) => m.revokedKeyIds)).toHaveLength(2);
      expect(resumed.messages.flatMap((m) => m.revokedKeyIds)[0]).toBe(created.keyId);
      expect(answer!.cursor).not.toBe(cursor);
      resumed.call.end();
    });

    it.each([
      ["letters", "abc"],
      ["a negative number", "-1"],
      ["a number too long for a cursor", "9".repeat(30)],
    ])("ends the stream with invalid-request for a cursor of %s", async (_, cursor) => {
      const feed = watch(cursor);
      await feed.next(() => false);
      expect(feed.failure()?.type).toBe("invalid-request");
    });
  });
});

import { randomUUID } from "node:crypto";
import { callUnary, checkHealth, createClient, startGrpcServer, WinnowError, type RunningGrpcServer } from "@winnow/platform";
import {
  AuthServiceClient,
  AuthServiceService,
  InvalidKeyReason,
} from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthStore } from "./auth-store.js";
import { createAuthService } from "./auth-service.js";
import { BACKENDS, openTestDatabase, silentLogger, type TestDatabase } from "./databases.test-helpers.js";
import { planLookup } from "./plans.js";

const LIMITS = { plan: "default", requestsPerMinute: 120, maxConcurrentScrapes: 3 };

describe.each(BACKENDS)("AuthService over gRPC on %s", (backend) => {
  let db: TestDatabase;
  let server: RunningGrpcServer;
  let client: AuthServiceClient;

  beforeAll(async () => {
    db = await openTestDatabase(backend);
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
      services: [
        {
          name: "winnow.auth.v1.AuthService",
          definition: AuthServiceService,
          implementation: createAuthService({
            store: new AuthStore(db.database),
            plans: planLookup({ PLAN_REQUESTS_PER_MINUTE: 120, PLAN_MAX_CONCURRENT_SCRAPES: 3 }),
            logger: silentLogger,
          }),
          protoFile: "winnow/auth/v1/auth.proto",
        },
      ],
    });
    server.setReady(true);
    client = createClient(AuthServiceClient, `127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    client?.close();
    await server?.shutdown(1000);
    await db?.dispose();
  });

  const validate = (apiKey: string) => callUnary(client.validateKey.bind(client), { apiKey });
  const createAccount = (email: string) => callUnary(client.createAccount.bind(client), { email });
  const rotateKey = (accountId: string) => callUnary(client.rotateKey.bind(client), { accountId });
  const failure = async (call: Promise<unknown>): Promise<WinnowError> => {
    const error = await call.then(
      () => expect.fail("the call succeeded"),
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(WinnowError);
    return error as WinnowError;
  };

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

  it.each([
    ["an empty key", ""],
    ["a key with a wrong checksum", "wnw_00000000000_0000000000000000000000000000"],
    ["a huge key", `wnw_${"a".repeat(100_000)}`],
    ["a unicode key", "wnw_ключ😀"],
  ])("answers MALFORMED for %s", async (_, apiKey) => {
    expect(await validate(apiKey)).toMatchObject({ valid: false, reason: InvalidKeyReason.INVALID_KEY_REASON_MALFORMED });
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
});

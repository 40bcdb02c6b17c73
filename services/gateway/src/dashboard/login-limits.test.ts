/**
 * Dashboard log-in limits over real HTTP with a real auth service, in memory
 * and in Redis: per account whatever the client says its address is, with a
 * block that grows; and per address.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createLogger } from "@winnow/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dashboardVisit,
  postForm,
  startTestGateway,
  TEST_REDIS_URL,
  type TestGateway,
} from "../gateway.test-helpers.js";
import { createLimiterFactory } from "../http/rate-limits.js";
import { LoginLimits } from "./login-limits.js";

const ATTEMPTS = 3;
const PASSWORD = "the right password";

describe.each([
  ["memory", undefined],
  ["Redis", TEST_REDIS_URL],
])("log-in limits in %s", (_, redisUrl) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // TRUST_PROXY=true: every X-Forwarded-For is believed, so each request below comes "from" a new address.
    gateway = await startTestGateway({ redisUrl, trustProxy: true, loginAttemptsPer15Min: ATTEMPTS });
  });
  afterAll(() => gateway?.close());

  const spoofed = () => ({
    origin: gateway.url,
    "x-forwarded-for": `203.0.113.${Math.floor(Math.random() * 250) + 1}`,
  });

  async function logIn(email: string, password: string): Promise<Response> {
    const { cookie, csrf } = await dashboardVisit(gateway.url);
    return postForm(gateway.url, "/dashboard/login", cookie, { _csrf: csrf, email, password }, spoofed());
  }

  async function account(): Promise<string> {
    const email = `${randomUUID()}@example.com`;
    await gateway.auth.createAccount({ email, password: PASSWORD });
    return email;
  }

  it("blocks an email after its failures, whatever X-Forwarded-For says, the right password included", async () => {
    const email = await account();
    for (let i = 0; i < ATTEMPTS; i++) expect((await logIn(email, `wrong guess ${i}`)).status).toBe(401);
    for (const password of ["another wrong guess", PASSWORD]) {
      const refused = await logIn(` ${email.toUpperCase()} `, password);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(await refused.text()).toMatch(/Too many attempts for this email address/);
    }
    // Another account is not affected.
    expect((await logIn(await account(), PASSWORD)).status).toBe(303);
  });

  it("counts consecutive failures: a successful log-in starts the count again", async () => {
    const email = await account();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < ATTEMPTS - 1; i++) expect((await logIn(email, "wrong guess")).status).toBe(401);
      expect((await logIn(email, PASSWORD)).status).toBe(303);
    }
  });
});

describe.each([
  ["memory", undefined],
  ["Redis", TEST_REDIS_URL],
])("LoginLimits in %s", (_, redisUrl) => {
  const logger = createLogger("login-limits-test", "silent");
  const factory = createLimiterFactory({
    redisUrl,
    keyPrefix: `winnow-test-${randomBytes(6).toString("hex")}:`,
    logger,
  });
  afterAll(() => factory.close());

  it("blocks an email longer each time: 1 s, then 2 s", async () => {
    const limits = new LoginLimits(factory, { failures: 2, firstBlockSeconds: 1, maxBlockSeconds: 60 });
    const email = `${randomUUID()}@example.com`;
    const address = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    for (const blockSeconds of [1, 2]) {
      // The last block has run out (none yet the first time): two more failures block it again.
      await expect.poll(() => limits.attempt(address(), email), { timeout: 5_000, interval: 100 }).toBeUndefined();
      await limits.failed(email);
      expect(await limits.attempt(address(), email)).toBeUndefined();
      await limits.failed(email);
      expect(await limits.attempt(address(), email)).toEqual({ by: "account", retryAfterSeconds: blockSeconds });
    }
  });

  it("limits attempts per address, ten times the failures, across emails", async () => {
    const limits = new LoginLimits(factory, { failures: 2 });
    const address = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    for (let i = 0; i < 20; i++) expect(await limits.attempt(address, `${i}@example.com`)).toBeUndefined();
    expect(await limits.attempt(address, "another@example.com")).toMatchObject({ by: "address" });
    expect(await limits.attempt("192.0.2.251", "another@example.com")).toBeUndefined();
  });
});

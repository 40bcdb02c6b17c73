/**
 * Dashboard log-in limits over real HTTP with a real auth service, in memory
 * and in Redis: per email and address with a block that grows, per email from
 * anywhere except for browsers that logged in before, and per address; so
 * that no stranger can lock an owner out.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createLogger } from "@winnow/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
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
    // TRUST_PROXY=true: every X-Forwarded-For is believed, so each request below comes from the address it names.
    gateway = await startTestGateway({ redisUrl, trustProxy: true, loginAttemptsPer15Min: ATTEMPTS });
  });
  afterAll(() => gateway?.close());

  const someAddress = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

  /** Posts a dashboard form from `address`, with the browser's known-device cookie when given. */
  async function post(path: string, form: { email: string; password: string }, address: string, device = "") {
    const { cookie, csrf } = await dashboardVisit(gateway.url);
    const cookies = [cookie, device].filter(Boolean).join("; ");
    return postForm(
      gateway.url,
      path,
      cookies,
      { _csrf: csrf, ...form },
      {
        origin: gateway.url,
        "x-forwarded-for": address,
      },
    );
  }
  const logIn = (email: string, password: string, address = someAddress(), device = "") =>
    post("/dashboard/login", { email, password }, address, device);

  async function account(): Promise<string> {
    const email = `${randomUUID()}@example.com`;
    await gateway.auth.createAccount({ email, password: PASSWORD });
    return email;
  }

  async function expectRefused(response: Response, reason: RegExp): Promise<void> {
    expect(response.status).toBe(429);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await response.text()).toMatch(reason);
  }

  it("blocks an email at the address that failed, the right password included; the owner elsewhere logs in", async () => {
    const email = await account();
    const stranger = someAddress();
    for (let i = 0; i < ATTEMPTS; i++) expect((await logIn(email, `wrong guess ${i}`, stranger)).status).toBe(401);
    for (const password of ["another wrong guess", PASSWORD]) {
      const refused = await logIn(` ${email.toUpperCase()} `, password, stranger);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      await expectRefused(refused, /Too many attempts for this email address/);
    }
    expect((await logIn(email, PASSWORD, "198.51.100.7")).status).toBe(303);
  });

  it("does not count failed sign-ups with an owner's email against the owner's log-in", async () => {
    const email = await account();
    const address = someAddress();
    for (let i = 0; i < 2 * ATTEMPTS; i++) {
      expect((await post("/dashboard/signup", { email, password: `a new password ${i}` }, address)).status).toBe(409);
    }
    expect((await logIn(email, PASSWORD, address)).status).toBe(303);
  });

  it("blocks an email guessed at from many addresses, except in a browser that logged in to it before", async () => {
    const email = await account();
    const first = await logIn(email, PASSWORD);
    expect(first.status).toBe(303);
    const device = first.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith("winnow_device="))!
      .split(";")[0]!;
    for (let i = 0; i < 10 * ATTEMPTS; i++) expect((await logIn(email, `wrong guess ${i}`)).status).toBe(401);
    await expectRefused(await logIn(email, PASSWORD), /log in from a browser you have logged in with before/i);
    // A forged device cookie is a stranger's.
    await expectRefused(await logIn(email, PASSWORD, someAddress(), `winnow_device=${"A".repeat(43)}`), /Too many/);
    expect((await logIn(email, PASSWORD, someAddress(), device)).status).toBe(303);
  });

  it("counts consecutive failures: a successful log-in starts the count again", async () => {
    const email = await account();
    const address = someAddress();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < ATTEMPTS - 1; i++) expect((await logIn(email, "wrong guess", address)).status).toBe(401);
      expect((await logIn(email, PASSWORD, address)).status).toBe(303);
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

  it("blocks an email at an address longer each time: 1 s, then 2 s", async () => {
    const limits = new LoginLimits(factory, { failures: 2, firstBlockSeconds: 1, maxBlockSeconds: 60 });
    const attempt = { address: "198.51.100.1", email: `${randomUUID()}@example.com` };
    for (const blockSeconds of [1, 2]) {
      // The last block has run out (none yet the first time): two more failures block it again.
      await expect.poll(() => limits.attempt(attempt), { timeout: TEST_TIMEOUT_MS / 4, interval: 100 }).toBeUndefined();
      await limits.failed(attempt);
      expect(await limits.attempt(attempt)).toBeUndefined();
      await limits.failed(attempt);
      expect(await limits.attempt(attempt)).toEqual({ by: "account", retryAfterSeconds: blockSeconds });
      expect(await limits.attempt({ ...attempt, address: "198.51.100.2" })).toBeUndefined();
    }
  });

  it("forgets a known device after its own consecutive failures", async () => {
    const limits = new LoginLimits(factory, { failures: 2 });
    const email = `${randomUUID()}@example.com`;
    const device = randomBytes(32).toString("base64url");
    await limits.succeeded({ address: "198.51.100.3", email, device });
    for (let i = 0; i < 20; i++) await limits.failed({ address: `198.51.100.${10 + i}`, email });
    expect(await limits.attempt({ address: "198.51.100.4", email })).toMatchObject({ by: "account" });
    expect(await limits.attempt({ address: "198.51.100.4", email, device })).toBeUndefined();
    await limits.failed({ address: "198.51.100.4", email, device });
    expect(await limits.attempt({ address: "198.51.100.4", email, device })).toBeUndefined();
    await limits.failed({ address: "198.51.100.4", email, device });
    expect(await limits.attempt({ address: "198.51.100.4", email, device })).toMatchObject({ by: "account" });
  });

  it("limits attempts per address, ten times the failures, across emails", async () => {
    const limits = new LoginLimits(factory, { failures: 2 });
    const address = `192.0.2.${Math.floor(Math.random() * 250) + 1}`;
    for (let i = 0; i < 20; i++) expect(await limits.attempt({ address, email: `${i}@example.com` })).toBeUndefined();
    expect(await limits.signUpAttempt(address)).toMatchObject({ by: "address" });
    expect(await limits.attempt({ address: "192.0.2.251", email: "another@example.com" })).toBeUndefined();
  });
});

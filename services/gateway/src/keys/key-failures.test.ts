/**
 * Failed API-key checks per client address, over real HTTP with a real auth
 * service that counts its ValidateKey calls, in memory and in Redis.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../../auth/src/api-key.js";
import { startTestGateway, TEST_REDIS_URL, type TestGateway } from "../gateway.test-helpers.js";

const FAILURES = 3;

describe.each([
  ["memory", undefined],
  ["Redis", TEST_REDIS_URL],
])("failed key checks in %s", (_, redisUrl) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // One proxy hop in front: the client address is the last X-Forwarded-For entry.
    gateway = await startTestGateway({ redisUrl, trustProxy: 1, keyFailuresPerMinute: FAILURES });
  });
  afterAll(() => gateway?.close());

  const account = (apiKey: string, address: string) =>
    fetch(`${gateway.url}/account`, { headers: { "x-api-key": apiKey, "x-forwarded-for": address } });

  it("answers 429 without asking auth once an address has used up its failures; valid keys do not count", async () => {
    const { apiKey } = await gateway.auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
    const address = "203.0.113.7";
    for (let i = 0; i < FAILURES + 2; i++) expect((await account(apiKey, address)).status).toBe(200);
    for (let i = 0; i < FAILURES; i++) expect((await account(generateApiKey().plaintext, address)).status).toBe(401);

    const asked = gateway.validations();
    for (const key of [generateApiKey().plaintext, "wnw_not-even-a-key"]) {
      const refused = await account(key, address);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await refused.json()).toMatchObject({
        type: "https://winnow.dev/problems/rate-limited",
        status: 429,
        retryable: true,
        detail: expect.stringMatching(/invalid API keys from this address/),
      });
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    expect(gateway.validations()).toBe(asked);

    // Another address is still asked about, and answered 401.
    expect((await account(generateApiKey().plaintext, "203.0.113.8")).status).toBe(401);
    expect(gateway.validations()).toBe(asked + 1);
  });
});

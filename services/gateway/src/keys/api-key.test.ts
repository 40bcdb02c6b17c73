/** The API key in `x-api-key` or as `Authorization: Bearer`, over real HTTP with a real auth service. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../gateway.test-helpers.js";

describe("the API key's headers", () => {
  let gateway: TestGateway;
  let apiKey: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    ({ apiKey } = await gateway.auth.createAccount({ email: `${randomUUID()}@example.com`, password: "" }));
  });
  afterAll(() => gateway?.close());

  const account = (headers: Record<string, string>) => fetch(`${gateway.url}/account`, { headers });
  const detail = async (res: Response) => ((await res.json()) as { detail: string }).detail;

  it("takes the key in x-api-key or as Authorization: Bearer, either case of the scheme", async () => {
    expect((await account({ "x-api-key": apiKey })).status).toBe(200);
    expect((await account({ authorization: `Bearer ${apiKey}` })).status).toBe(200);
    expect((await account({ authorization: `bearer ${apiKey}` })).status).toBe(200);
    expect((await account({ "x-api-key": apiKey, authorization: `Bearer ${apiKey}` })).status).toBe(200);
  });

  it("names both ways when no key is sent, and refuses another scheme or two different keys", async () => {
    const none = await account({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="winnow"');
    expect(await detail(none)).toMatch(/x-api-key header or as Authorization: Bearer <key>/);
    const basic = await account({ authorization: `Basic ${Buffer.from(`me:${apiKey}`).toString("base64")}` });
    expect(basic.status).toBe(401);
    expect(await detail(basic)).toMatch(/must be Bearer <API key>/);
    const two = await account({ "x-api-key": apiKey, authorization: "Bearer wnw_another" });
    expect(two.status).toBe(401);
    expect(await detail(two)).toMatch(/different keys/);
  });
});

/**
 * A throttled key's waiting pages come back a minute's requests at a time, against a real auth server and the
 * in-memory limits: told all to come back at the reset, each would be taken again then only to wait once more.
 * Counted in the waits answered, not timed.
 */
import { randomUUID } from "node:crypto";
import { createLogger } from "@winnow/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TEST_TOKENS } from "../../../../test/support/caller-tokens.js";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import { connectBackends } from "../backends.js";
import { startTestAuth } from "../gateway.test-helpers.js";
import { createLimiterFactory } from "../http/rate-limits.js";
import { KeyCheck } from "../keys/key-check.js";
import { KeyLimits } from "../keys/key-limits.js";
import { PageAdmission } from "./page-admission.js";

const logger = createLogger("page-admission-test", "silent");
const PER_MINUTE = 3;
const MINUTE_MS = 60_000;

let auth: Awaited<ReturnType<typeof startTestAuth>>;
let backends: ReturnType<typeof connectBackends>;
let keys: KeyCheck;

beforeAll(async () => {
  auth = await startTestAuth({ requestsPerMinute: PER_MINUTE, maxConcurrentScrapes: 2 });
  backends = connectBackends(
    { auth: auth.addr, renderer: "127.0.0.1:9", extractor: "127.0.0.1:9" },
    { gateway: TEST_TOKENS.gateway, service: TEST_TOKENS.service },
  );
  keys = new KeyCheck(backends.auth, { size: 100, maxAgeMs: 60_000, logger });
});
/** A new account's key, and page admission on limits of its own. */
async function newKeyAdmission() {
  const { apiKey } = await auth.admin.createAccount({ email: `${randomUUID()}@example.com`, password: "" });
  const hop = { deadline: new Date(Date.now() + TEST_TIMEOUT_MS) };
  const keyId = (await keys.check(apiKey, hop)).key!.keyId;
  const limiters = createLimiterFactory({ keyPrefix: `admission-${randomUUID()}:`, logger });
  return { hop, keyId, limiters, admission: new PageAdmission(keys, new KeyLimits(limiters, 60, logger)) };
}

afterAll(async () => {
  keys?.close();
  backends?.close();
  auth?.admin.grpc.close();
  await auth?.close();
});

it("tells a throttled key's pages to come back a minute's requests at a time", async () => {
  const { hop, keyId, limiters, admission } = await newKeyAdmission();
  // The minute's requests, used.
  for (let page = 0; page < PER_MINUTE; page++) {
    const admitted = await admission.admit(keyId, hop);
    expect(admitted).toHaveProperty("release");
    if ("release" in admitted) admitted.release();
  }
  const waits: number[] = [];
  for (let page = 0; page < 4 * PER_MINUTE; page++) {
    const admitted = await admission.admit(keyId, hop);
    if (!("laterMs" in admitted)) throw new Error(`page ${page} was not told to wait: ${JSON.stringify(admitted)}`);
    expect(admitted.line).toBe(true);
    waits.push(admitted.laterMs);
  }
  await limiters.close();
  // By the minute each comes back in, counted from the reset (the earliest wait; each is spread by at most a second):
  // a minute's requests each.
  const reset = Math.min(...waits);
  const minutes = waits.map((ms) => Math.round((ms - reset) / MINUTE_MS));
  for (let minute = 0; minute < 4; minute++) expect(minutes.filter((m) => m === minute)).toHaveLength(PER_MINUTE);
});

it("puts a key's whole line off while its scrape slots are all taken", async () => {
  const { hop, keyId, limiters, admission } = await newKeyAdmission();
  const running: (() => void)[] = [];
  for (;;) {
    const admitted = await admission.admit(keyId, hop);
    if ("release" in admitted) {
      running.push(admitted.release);
      continue;
    }
    // None of the key's pages can run before a slot is released: the queue holds its line, not each page in turn.
    expect(admitted).toMatchObject({ laterMs: expect.any(Number), line: true });
    break;
  }
  expect(running.length).toBeGreaterThan(0);
  for (const release of running) release();
  expect(await admission.admit(keyId, hop)).toHaveProperty("release");
  await limiters.close();
});

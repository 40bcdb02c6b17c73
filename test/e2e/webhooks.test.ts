/**
 * Webhook deliveries against the whole stack as real processes: a receiver
 * that trickles its answer holds no more than its share of the delivery
 * workers and is cut off at the attempt's deadline, while another account's
 * receiver gets its events; each account's signing secret is random and
 * rotates, both secrets signing during the grace.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { verifyWebhookSignature } from "@winnow/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixturePage } from "../support/fixture-site.js";
import { launchStack, type RunningStack } from "../support/stack-under-test.js";
import { TEST_TIMEOUT_MS } from "../support/test-timeout.js";

/** Small, so that a trickling receiver's attempts end within the test. */
const WEBHOOK_TIMEOUT_MS = 2_000;
const WEBHOOK_MAX_IN_FLIGHT = 1;
const SLOW_PAGES = 10;

const PAGES: Record<string, FixturePage> = Object.fromEntries(
  ["slow", "fast", "signed"].flatMap((prefix) =>
    Array.from({ length: SLOW_PAGES }, (_, i) => [
      `/${prefix}/${i}`,
      { body: `<!doctype html><html><head><title>${prefix} ${i}</title></head><body><h1>${i}</h1></body></html>` },
    ]),
  ),
);

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; job_id: string };
}

interface Receiver {
  server: Server;
  hostPort: string;
  deliveries: Delivery[];
  /** Requests open at most at once. */
  maxOpen: number;
  /** Answers the sender closed before they were complete. */
  cut: number;
}

/** A receiver; `trickle` answers 200 at once, then a byte every 200 ms, never ending. */
async function startReceiver(trickle: boolean): Promise<Receiver> {
  let open = 0;
  const receiver = { deliveries: [] as Delivery[], maxOpen: 0, cut: 0 } as Receiver;
  receiver.server = createServer((req, res) => {
    open += 1;
    receiver.maxOpen = Math.max(receiver.maxOpen, open);
    res.on("close", () => {
      open -= 1;
      if (!res.writableFinished) receiver.cut += 1;
    });
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      receiver.deliveries.push({ headers: req.headers, body, event: JSON.parse(body) });
      if (!trickle) {
        res.writeHead(204).end();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" });
      const drip = setInterval(() => res.write("."), 200);
      res.on("close", () => clearInterval(drip));
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  receiver.hostPort = `127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
  return receiver;
}

describe("webhook deliveries", () => {
  let run: RunningStack;
  let slow: Receiver;
  let fast: Receiver;

  beforeAll(async () => {
    slow = await startReceiver(true);
    fast = await startReceiver(false);
    run = await launchStack(
      PAGES,
      {
        WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
        WEBHOOK_MAX_IN_FLIGHT: String(WEBHOOK_MAX_IN_FLIGHT),
      },
      { extraEgress: [slow.hostPort, fast.hostPort] },
    );
  });
  afterAll(async () => {
    await run?.stop();
    for (const receiver of [slow, fast]) {
      receiver?.server.closeAllConnections();
      await new Promise((resolve) => receiver?.server.close(resolve));
    }
  });

  const api = (path: string, apiKey: string, init: RequestInit = {}) =>
    fetch(`${run.stack.gatewayUrl}${path}`, {
      ...init,
      headers: { "content-type": "application/json", "x-api-key": apiKey, ...init.headers },
    });
  /** Submits a job of `count` pages under `prefix` with its events sent to `receiver`; its id. */
  const submit = async (apiKey: string, prefix: string, count: number, receiver: Receiver): Promise<string> => {
    const res = await api("/batch/scrape", apiKey, {
      method: "POST",
      body: JSON.stringify({
        urls: Array.from({ length: count }, (_, i) => `${run.site.origin}/${prefix}/${i}`),
        schema: { title: "string" },
        options: { render: "static" },
        webhook: { url: `http://${receiver.hostPort}/hooks/${prefix}` },
      }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { id: string }).id;
  };
  /** Waits (bounded by the test's timeout) until `done` holds. */
  const until = async (done: () => boolean) => {
    while (!done()) await sleep(50);
  };
  const eventsOf = (receiver: Receiver, jobId: string) =>
    new Set(receiver.deliveries.filter((d) => d.event.job_id === jobId).map((d) => d.event.id));

  it(
    "delivers another account's events while a trickling receiver holds its one slot, and cuts each attempt at its deadline",
    async () => {
      const slowJob = await submit(await run.newAccountKey(), "slow", SLOW_PAGES, slow);
      // The trickling receiver holds a delivery before the other account's job starts.
      await until(() => slow.deliveries.length > 0);
      const fastJob = await submit(await run.newAccountKey(), "fast", 2, fast);
      // Its two pages' events and `completed` (in any order: a delivery put off may come after a later one).
      await until(() => eventsOf(fast, fastJob).size === 3);
      // Each of the slow job's events takes a whole deadline, one at a time: most are still to come.
      expect(eventsOf(slow, slowJob).size).toBeLessThan(SLOW_PAGES + 1);

      // Every event reaches the trickling receiver in the end (put off, not lost), every attempt cut at its deadline,
      // never more than one of them at a time.
      await until(() => eventsOf(slow, slowJob).size === SLOW_PAGES + 1);
      await until(() => slow.cut === slow.deliveries.length);
      expect(slow.maxOpen).toBe(WEBHOOK_MAX_IN_FLIGHT);
    },
    3 * TEST_TIMEOUT_MS,
  );

  it(
    "signs with a random secret per account that rotates: during the grace both secrets sign, announced in a header",
    async () => {
      const apiKey = await run.newAccountKey();
      const otherKey = await run.newAccountKey();
      type AccountSecret = { webhook_secret: string; webhook_secret_previous_expires_at?: string };
      const secretOf = async (key: string) => (await (await api("/account", key)).json()) as AccountSecret;
      const rotate = async () => {
        const res = await api("/account/webhook-secret/rotate", apiKey, { method: "POST" });
        expect(res.status).toBe(200);
        return (await res.json()) as AccountSecret;
      };
      /** The deliveries of a new one-page job of the account (its page event and `completed`). */
      const deliveries = async () => {
        const job = await submit(apiKey, "signed", 1, fast);
        await until(() => eventsOf(fast, job).size === 2);
        return fast.deliveries.filter((d) => d.event.job_id === job);
      };
      const verifies = (delivery: Delivery, secret: string) =>
        verifyWebhookSignature(delivery.body, delivery.headers["winnow-signature"], secret);

      const first = await secretOf(apiKey);
      const other = await secretOf(otherKey);
      expect(first.webhook_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(first.webhook_secret_previous_expires_at).toBeUndefined();
      expect(other.webhook_secret).not.toBe(first.webhook_secret);
      for (const delivery of await deliveries()) {
        expect(await verifies(delivery, first.webhook_secret)).toBe(true);
        expect(delivery.headers["winnow-secret-rotation"]).toBeUndefined();
      }

      const second = await rotate();
      expect(second.webhook_secret).toMatch(/^whsec_/);
      expect(second.webhook_secret).not.toBe(first.webhook_secret);
      expect(Date.parse(second.webhook_secret_previous_expires_at!)).toBeGreaterThan(Date.now());
      expect(await secretOf(apiKey)).toMatchObject(second);
      // During the grace a receiver still holding the old secret accepts deliveries, as does one with the new one.
      for (const delivery of await deliveries()) {
        expect(await verifies(delivery, first.webhook_secret)).toBe(true);
        expect(await verifies(delivery, second.webhook_secret)).toBe(true);
        expect(await verifies(delivery, other.webhook_secret)).toBe(false);
        expect(delivery.headers["winnow-secret-rotation"]).toBe(
          `previous-expires=${second.webhook_secret_previous_expires_at}`,
        );
      }

      // Rotating again (the old secret leaked): it stops signing at once.
      const third = await rotate();
      for (const delivery of await deliveries()) {
        expect(await verifies(delivery, first.webhook_secret)).toBe(false);
        expect(await verifies(delivery, second.webhook_secret)).toBe(true);
        expect(await verifies(delivery, third.webhook_secret)).toBe(true);
      }
      // Another account's secret is its own; rotating needs the account's key.
      expect(await secretOf(otherKey)).toEqual(other);
      const anonymous = await fetch(`${run.stack.gatewayUrl}/account/webhook-secret/rotate`, { method: "POST" });
      expect(anonymous.status).toBe(401);
    },
    2 * TEST_TIMEOUT_MS,
  );

  it(
    "rotates the webhook secret from the dashboard, saying until when the previous one signs",
    async () => {
      const base = run.stack.gatewayUrl;
      const visit = async (path: string, cookie = "") => {
        const res = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
        return { cookies: res.headers.getSetCookie(), text: await res.text() };
      };
      const post = (path: string, cookie: string, form: Record<string, string>) =>
        fetch(`${base}${path}`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: base },
          body: new URLSearchParams(form),
        });
      const csrfOf = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)![1]!;
      const cookieOf = (cookies: string[], name: string) =>
        cookies.find((c) => c.startsWith(`${name}=`))!.split(";")[0]!;
      const secretOn = (text: string) => /id="webhook-secret"[^>]*value="([^"]+)"/.exec(text)?.[1];

      const signUp = await visit("/dashboard/signup");
      const signedUp = await post("/dashboard/signup", cookieOf(signUp.cookies, "winnow_csrf"), {
        _csrf: csrfOf(signUp.text),
        email: `${Date.now()}-${Math.random()}@example.com`,
        password: "a long enough password",
      });
      expect(signedUp.status).toBe(303);
      const session = cookieOf(signedUp.headers.getSetCookie(), "winnow_session");
      const page = await visit("/dashboard", session);
      const before = secretOn(page.text);
      expect(before).toMatch(/^whsec_/);
      expect(page.text).not.toMatch(/previous secret still signs/);

      const rotated = await post("/dashboard/webhook-secret", session, { _csrf: csrfOf(page.text) });
      expect(rotated.status).toBe(303);
      expect(rotated.headers.get("location")).toBe("/dashboard?webhook-secret=rotated");
      const after = await visit("/dashboard?webhook-secret=rotated", session);
      expect(secretOn(after.text)).toMatch(/^whsec_/);
      expect(secretOn(after.text)).not.toBe(before);
      expect(after.text).toMatch(/Your webhook secret was rotated/);
      expect(after.text).toMatch(/The previous secret still signs deliveries \(beside this one\) until \d{4}-/);
    },
    TEST_TIMEOUT_MS,
  );
});

import http from "node:http";
import type { AddressInfo } from "node:net";
import { EgressGuard, parseEgressAllowlist } from "@winnow/platform";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import { DeliverySlots } from "./delivery-slots.js";
import type { WebhookSecretCache } from "./webhook-secret-cache.js";
import { Webhooks } from "./webhooks.js";

const lines: Record<string, unknown>[] = [];
let receiver: http.Server;
let base: string;
let webhooks: Webhooks;

beforeAll(async () => {
  // Answers with the status its path names.
  receiver = http.createServer((req, res) => res.writeHead(Number(req.url?.split("/")[2])).end());
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hostPort = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  base = `http://${hostPort}`;
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const secrets = { secrets: async () => [] } as unknown as WebhookSecretCache;
  // Delivering needs neither the queue nor the job store.
  webhooks = new Webhooks(
    {} as never,
    {} as never,
    secrets,
    new EgressGuard(parseEgressAllowlist(hostPort)),
    { timeoutMs: TEST_TIMEOUT_MS, slots: new DeliverySlots(4) },
    logger,
  );
});

afterAll(() => receiver?.close());

const deliver = (path: string, lastAttempt = false) =>
  webhooks.deliver(
    { data: { url: `${base}${path}`, accountId: "acct-1", body: "{}" }, lastAttempt },
    new AbortController().signal,
  );

describe("webhook deliveries", () => {
  it("are logged by their receiver's host, with the status it answered", async () => {
    await deliver("/hook/204/secret-token");
    expect(lines.at(-1)).toMatchObject({
      level: 30,
      host: new URL(base).host,
      account_id: "acct-1",
      status: 204,
      msg: `webhook delivered to ${new URL(base).host} (204)`,
    });
    expect(JSON.stringify(lines.at(-1))).not.toContain("secret-token");
  });

  it("log each failed attempt with its reason, and whether it will be retried", async () => {
    await expect(deliver("/hook/500")).rejects.toThrow("answered 500");
    expect(lines.at(-1)).toMatchObject({
      level: 40,
      account_id: "acct-1",
      last_attempt: false,
      msg: `webhook delivery to ${new URL(base).host} failed: the webhook receiver answered 500; it will be retried`,
    });
    await expect(deliver("/hook/404", true)).rejects.toThrow("answered 404");
    expect(lines.at(-1)).toMatchObject({ last_attempt: true, msg: expect.not.stringContaining("retried") });
  });
});

/** Webhook signatures as the gateway makes them (HMAC-SHA256 over `<t>.<body>`), checked by the client. */
import { createHmac } from "node:crypto";
import { verifyWebhookSignature } from "@winnow/client";
import { describe, expect, it } from "vitest";

const secret = "whsec_test";
const body = '{"id":"job:0","type":"page"}';
const sign = (t: number, text = body, key = secret) =>
  `t=${t},v1=${createHmac("sha256", key).update(`${t}.${text}`).digest("hex")}`;

describe("verifyWebhookSignature", () => {
  const now = 1_800_000_000;

  it("accepts the body it was signed over, as text or bytes", async () => {
    expect(await verifyWebhookSignature(body, sign(now), secret, { now })).toBe(true);
    expect(await verifyWebhookSignature(new TextEncoder().encode(body), sign(now), secret, { now })).toBe(true);
  });

  it("refuses another body, another secret, a stale or future timestamp, and malformed headers", async () => {
    expect(await verifyWebhookSignature(`${body} `, sign(now), secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(body, sign(now, body, "other"), secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(body, sign(now - 301), secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(body, sign(now + 301), secret, { now })).toBe(false);
    expect(await verifyWebhookSignature(body, sign(now - 600), secret, { now, toleranceSeconds: 900 })).toBe(true);
    for (const header of ["", "t=abc,v1=00", `v1=${"0".repeat(64)}`, `t=${now}`, `t=${now},v1=zz`])
      expect(await verifyWebhookSignature(body, header, secret, { now })).toBe(false);
  });

  it("answers false, never throws, for a header that is missing, repeated or not ASCII", async () => {
    const headers: unknown[] = [
      undefined,
      null,
      [sign(now), sign(now)],
      42,
      `t=${"١".repeat(10)},v1=${"0".repeat(64)}`,
    ];
    for (const header of headers)
      expect(await verifyWebhookSignature(body, header as string | string[] | undefined, secret, { now })).toBe(false);
  });

  it("accepts a header with several v1 signatures (a rotation's grace) when one of them is by its secret", async () => {
    const mac = (key: string) => sign(now, body, key).split(",v1=")[1];
    const rotated = `t=${now},v1=${mac("whsec_new")},v1=${mac(secret)}`;
    expect(await verifyWebhookSignature(body, rotated, secret, { now })).toBe(true);
    expect(await verifyWebhookSignature(body, rotated, "whsec_new", { now })).toBe(true);
    expect(await verifyWebhookSignature(body, rotated, "whsec_other", { now })).toBe(false);
    expect(await verifyWebhookSignature(body, `t=${now},v1=zz,v1=${mac(secret)}`, secret, { now })).toBe(true);
  });
});

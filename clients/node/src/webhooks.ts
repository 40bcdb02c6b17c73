/**
 * The header Winnow signs each webhook delivery with: `t=<unix seconds>,v1=<hex HMAC-SHA256>`, with a second
 * `,v1=` (by the previous secret) while the account's webhook secret rotates.
 */
export const WEBHOOK_SIGNATURE_HEADER = "winnow-signature";

export interface VerifyWebhookOptions {
  /** How old (or how far in the future) a delivery may be, against replays; 300 s by default. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (for tests). */
  now?: number;
}

/**
 * Resolves to true when `signature` (the Winnow-Signature header) holds the
 * account's webhook secret's HMAC-SHA256 of `<t>.<body>` as one of its `v1=`
 * values (while a secret rotates, deliveries carry one per secret) and `t` is
 * recent. Pass the body exactly as received (the raw bytes or text, before any
 * JSON parsing); a missing or malformed header is false, never an exception.
 * Web Crypto: the same in Node.js 18+, Deno, Bun and workers.
 */
export async function verifyWebhookSignature(
  body: string | Uint8Array,
  signature: string | string[] | null | undefined,
  secret: string,
  { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) }: VerifyWebhookOptions = {},
): Promise<boolean> {
  // A request's header as Node.js gives it: undefined when missing, an array when repeated (never ours).
  if (typeof signature !== "string") return false;
  const parts = signature.split(",").map((part) => {
    const at = part.indexOf("=");
    return { name: part.slice(0, at).trim(), value: part.slice(at + 1).trim() };
  });
  const timestamps = parts.filter((part) => part.name === "t");
  const timestamp = timestamps.length === 1 ? timestamps[0]!.value : "";
  if (!/^[0-9]{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > toleranceSeconds) return false;
  const given = parts.filter((part) => part.name === "v1" && /^[0-9a-f]{64}$/.test(part.value));
  if (given.length === 0) return false;
  const encoder = new TextEncoder();
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  for (const { value } of given) {
    // verify() compares in constant time.
    const mac = new Uint8Array(value.match(/../g)!.map((byte) => Number.parseInt(byte, 16)));
    if (await crypto.subtle.verify("HMAC", key, mac, signed)) return true;
  }
  return false;
}

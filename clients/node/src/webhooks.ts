/** The header Winnow signs each webhook delivery with: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const WEBHOOK_SIGNATURE_HEADER = "winnow-signature";

export interface VerifyWebhookOptions {
  /** How old (or how far in the future) a delivery may be, against replays; 300 s by default. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (for tests). */
  now?: number;
}

/**
 * Resolves to true when `signature` (the Winnow-Signature header) is the
 * account's webhook secret's HMAC-SHA256 of `<t>.<body>` and `t` is recent.
 * Pass the body exactly as received (the raw bytes or text, before any JSON
 * parsing). Web Crypto: the same in Node.js 18+, Deno, Bun and workers.
 */
export async function verifyWebhookSignature(
  body: string | Uint8Array,
  signature: string,
  secret: string,
  { toleranceSeconds = 300, now = Math.floor(Date.now() / 1000) }: VerifyWebhookOptions = {},
): Promise<boolean> {
  const parts = new Map(
    signature.split(",").map((part) => {
      const at = part.indexOf("=");
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = parts.get("t") ?? "";
  const given = parts.get("v1") ?? "";
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > toleranceSeconds) return false;
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const encoder = new TextEncoder();
  const bodyBytes = typeof body === "string" ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  // verify() compares in constant time.
  const mac = new Uint8Array(given.match(/../g)!.map((byte) => Number.parseInt(byte, 16)));
  return crypto.subtle.verify("HMAC", key, mac, signed);
}

import { createHmac } from "node:crypto";
import type { WebhookSecret } from "@winnow/platform/gen/winnow/auth/v1/auth.js";

/** The header carrying a delivery's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`, one v1 per valid secret. */
const SIGNATURE_HEADER = "Winnow-Signature";
/** Sent while a rotated secret's grace lasts: `previous-expires=<RFC 3339 time>`, when the old secret stops signing. */
const ROTATION_HEADER = "Winnow-Secret-Rotation";

/**
 * A delivery's signature headers: the HMAC-SHA256 of `<timestamp>.<body>` under each of the account's valid
 * secrets (the current one first, then the one it replaced while its grace lasts), as Stripe signs with several
 * v1 values, so that a receiver verifying with either secret accepts it during a rotation.
 */
export function signatureHeaders(
  secrets: WebhookSecret[],
  body: string,
  timestampSeconds: number,
): Record<string, string> {
  const macs = secrets.map(
    ({ secret }) => `v1=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`,
  );
  const headers: Record<string, string> = { [SIGNATURE_HEADER]: [`t=${timestampSeconds}`, ...macs].join(",") };
  const expiresAt = secrets.find((secret) => secret.expiresAt)?.expiresAt;
  if (expiresAt) headers[ROTATION_HEADER] = `previous-expires=${expiresAt.toISOString()}`;
  return headers;
}

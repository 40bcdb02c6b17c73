import { createHmac } from "node:crypto";

/** The header carrying a delivery's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = "Winnow-Signature";

/** HMAC-SHA256 with the account's webhook secret over `<timestamp>.<body>`, the timestamp in Unix seconds. */
export function signatureHeader(secret: string, body: string, timestampSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex");
  return `t=${timestampSeconds},v1=${mac}`;
}

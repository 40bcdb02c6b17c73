import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * The renderer signs each page it fetched (its final URL and HTML) with a key
 * only the renderer and the extractor hold (WINNOW_PAGE_SIGNING_KEY). A page
 * teaches the extractor's learned templates only when its signature holds, so
 * HTML that any other caller supplies, the gateway included, never teaches:
 * it could plant locators that answer a site's real pages wrongly.
 */
export const PAGE_SIGNING_KEY_VARIABLE = "WINNOW_PAGE_SIGNING_KEY";

/** HMAC-SHA256 over the URL and the HTML's digest, under a label of its own so it can serve no other purpose. */
export function signPage(key: string, url: string, html: string): Buffer {
  const htmlDigest = createHash("sha256").update(html, "utf8").digest("hex");
  return createHmac("sha256", key).update(`winnow-page/1\n${url}\n${htmlDigest}`, "utf8").digest();
}

/** Whether the signature is the key's for exactly this URL and HTML (compared in constant time). */
export function pageSignatureHolds(key: string, url: string, html: string, signature: Uint8Array): boolean {
  const expected = signPage(key, url, html);
  return signature.length === expected.length && timingSafeEqual(expected, signature);
}

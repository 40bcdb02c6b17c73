/**
 * Chromium decodes a web page whose encoding nothing labels as windows-1252,
 * whatever its bytes are: it leaves out, for web pages, the autodetection step
 * the HTML standard allows (html-encoding.ts). When the bytes sniff as another
 * encoding, the page is loaded once more from the bytes already in hand, now
 * labelled, so that the document and whatever its scripts build start from
 * the right text. The bytes came through the egress proxy the first time; the
 * second load's sub-resources go through it as usual.
 */
import type { Page, Response } from "playwright-core";
import { charsetLabel, sniffEncoding } from "../html-encoding.js";

/** Headers that describe the body as sent on the wire, not the decoded bytes it is served from here. */
const WIRE_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding"]);

/**
 * Reloads the page labelled with the encoding its bytes sniff as, when the
 * browser read them otherwise; resolves to the new response, or to the given
 * one when the browser read the page right.
 */
export async function relabelMisreadDocument(
  page: Page,
  response: Response,
  bytes: Buffer,
  timeoutMs: number,
): Promise<Response> {
  const contentType = response.headers()["content-type"] ?? "";
  const sniffed = sniffEncoding(bytes, charsetLabel(contentType));
  const url = response.url();
  // A page its scripts already sent elsewhere is another document: that one is read as it is.
  if (!sniffed.detected || page.url() !== url) return response;
  const readAs = await page.evaluate(() => document.characterSet);
  if (readAs.toLowerCase() === sniffed.encoding.toLowerCase()) return response;

  const headers = Object.fromEntries(
    Object.entries(response.headers()).filter(([name]) => !WIRE_HEADERS.has(name.toLowerCase())),
  );
  headers["content-type"] = `${contentType || "text/html"}; charset=${sniffed.encoding}`;
  // Matched as a URL, not as a glob pattern (a query's "?" or a "*" in a path would be wildcards).
  await page.route(
    (requested) => requested.href === url,
    (route) => route.fulfill({ status: response.status(), headers, body: bytes }),
    { times: 1 },
  );
  const reloaded = await page.goto(url, { waitUntil: "domcontentloaded", timeout: timeoutMs });
  return reloaded ?? response;
}

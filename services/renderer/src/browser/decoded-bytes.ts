import { WinnowError } from "@winnow/platform";
import type { CDPSession, Page } from "playwright-core";

/**
 * Caps what a page's responses decode to, as Chromium reports it. The egress
 * proxy decodes and caps plain-HTTP bodies itself, but HTTPS goes through it
 * as an encrypted tunnel, where only the bytes as sent can be counted: a small
 * compressed "bomb" over HTTPS inflates inside the browser. Chromium's
 * DevTools protocol reports every chunk it receives with its decoded length
 * (Network.dataReceived), for any scheme, so the cap holds whatever the
 * transport: a document (the page's or a frame's) may decode to at most
 * `maxDocumentBytes`, and all of the page's responses together to at most
 * `maxTotalBytes`.
 *
 * Out-of-process frames (cross-site iframes under site isolation) report to
 * their own targets, which this session does not see; the tunnel's byte
 * budget still bounds what they bring in as sent.
 */
export interface DecodedBytesCaps {
  maxDocumentBytes: number;
  maxTotalBytes: number;
}

export async function watchDecodedBytes(
  page: Page,
  caps: DecodedBytesCaps,
  onExceeded: (problem: WinnowError) => void,
): Promise<CDPSession> {
  const session = await page.context().newCDPSession(page);
  const documents = new Set<string>();
  const perResponse = new Map<string, number>();
  let total = 0;
  let exceeded = false;
  const exceed = (message: string) => {
    if (exceeded) return;
    exceeded = true;
    onExceeded(new WinnowError("page-too-large", message));
  };
  session.on("Network.responseReceived", ({ requestId, type }) => {
    if (type === "Document") documents.add(requestId);
  });
  session.on("Network.dataReceived", ({ requestId, dataLength }) => {
    const decoded = (perResponse.get(requestId) ?? 0) + dataLength;
    perResponse.set(requestId, decoded);
    total += dataLength;
    if (documents.has(requestId) && decoded > caps.maxDocumentBytes)
      exceed(`the page is larger than ${caps.maxDocumentBytes} bytes once decoded`);
    else if (total > caps.maxTotalBytes)
      exceed(`the page's resources are larger than ${caps.maxTotalBytes} bytes once decoded`);
  });
  // Finished responses no longer grow; only the running total needs them.
  const forget = ({ requestId }: { requestId: string }) => {
    perResponse.delete(requestId);
    documents.delete(requestId);
  };
  session.on("Network.loadingFinished", forget);
  session.on("Network.loadingFailed", forget);
  await session.send("Network.enable");
  return session;
}

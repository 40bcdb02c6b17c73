import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Serves fixed pages on 127.0.0.1 for tests: path → { status?, type?, body }. */
export interface FixturePage {
  status?: number;
  type?: string;
  body: string;
  /** Waits this long before answering (slow sites, timeouts, draining). */
  delayMs?: number;
  /** Answers once this settles: a slow page held as long as the test likes. */
  heldUntil?: Promise<void>;
}

export interface FixtureSite {
  origin: string;
  /** host:port, for WINNOW_EGRESS_ALLOW. */
  hostPort: string;
  /** How many requests a path has received (whether or not a page is served there). */
  requests(path: string): number;
  /** Requests answered so far, by path. */
  hits: Map<string, number>;
  /** The most requests that were being answered at once. */
  maxInFlight(): number;
  /** Requests being answered now. */
  inFlight(): number;
  close(): Promise<void>;
}

export async function startFixtureSite(pages: Record<string, FixturePage>): Promise<FixtureSite> {
  const hits = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once("close", () => inFlight--);
    hits.set(req.url ?? "", (hits.get(req.url ?? "") ?? 0) + 1);
    const page = Object.hasOwn(pages, req.url ?? "") ? pages[req.url!] : undefined;
    if (!page) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
      return;
    }
    const answer = () =>
      res.writeHead(page.status ?? 200, { "content-type": page.type ?? "text/html; charset=utf-8" }).end(page.body);
    if (page.delayMs) setTimeout(answer, page.delayMs);
    else if (page.heldUntil) void page.heldUntil.then(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests: (path) => hits.get(path) ?? 0,
    hits,
    maxInFlight: () => maxInFlight,
    inFlight: () => inFlight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

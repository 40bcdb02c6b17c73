import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Serves fixed pages on 127.0.0.1 for tests: path → { status?, type?, body }. */
export interface FixturePage {
  status?: number;
  type?: string;
  body: string;
  /** Waits this long before answering (slow sites, timeouts, draining). */
  delayMs?: number;
}

export interface FixtureSite {
  origin: string;
  /** host:port, for WINNOW_EGRESS_ALLOW. */
  hostPort: string;
  close(): Promise<void>;
}

export async function startFixtureSite(pages: Record<string, FixturePage>): Promise<FixtureSite> {
  const server = createServer((req, res) => {
    const page = Object.hasOwn(pages, req.url ?? "") ? pages[req.url!] : undefined;
    if (!page) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
      return;
    }
    const answer = () =>
      res.writeHead(page.status ?? 200, { "content-type": page.type ?? "text/html; charset=utf-8" }).end(page.body);
    if (page.delayMs) setTimeout(answer, page.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An extraction corpus in the format of `../shared/corpus/README.md`, and a loopback server for its pages. */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { SchemaValue } from "./score.js";

export interface Case {
  id: string;
  corpus: string;
  site: string;
  /** Where the page was saved from; for context only, it is served on loopback. */
  url?: string;
  /** Relative to the corpus folder. */
  page: string;
  schema: Record<string, SchemaValue>;
  expected: Record<string, unknown>;
}

export async function readCases(corpusDir: string): Promise<Case[]> {
  const text = await readFile(path.join(corpusDir, "cases.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      const value = JSON.parse(line) as Case;
      if (typeof value.id !== "string" || typeof value.page !== "string" || typeof value.schema !== "object") {
        throw new Error(`cases.jsonl line ${index + 1}: needs id, page and schema`);
      }
      return value;
    });
}

export interface PageServer {
  /** The loopback URL of a case's page. */
  urlOf(item: Case): string;
  /** `host:port`, for WINNOW_EGRESS_ALLOW. */
  hostPort: string;
  close(): Promise<void>;
}

/**
 * Serves the pages of the corpus (and nothing outside its folder) on 127.0.0.1, as text/html; `transform`, when
 * given, rewrites each page before it is served (e.g. scramble.ts).
 */
export async function servePages(corpusDir: string, transform?: (html: string) => string): Promise<PageServer> {
  const root = path.resolve(corpusDir);
  const server: Server = createServer((req, res) => {
    const file = path.resolve(root, `.${decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)}`);
    if (!file.startsWith(`${root}${path.sep}`) || !file.endsWith(".html")) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) =>
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(transform ? transform(body.toString("utf8")) : body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hostPort,
    urlOf: (item) => `http://${hostPort}/${item.page.split("/").map(encodeURIComponent).join("/")}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

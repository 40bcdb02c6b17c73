import { type Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type EgressGuard, type PinnedTarget, pinnedLookup, WinnowError } from "@winnow/platform";
import { LRUCache } from "lru-cache";
import { Pool, request } from "undici";
import { ACCEPT_ENCODING, byteCap, codeOf, decoderFor, decodingProblem } from "../content-encoding.js";
import { type PageContent, pageContent } from "../content-type.js";
import { decodeDocument } from "../html-encoding.js";

export interface StaticFetchOptions {
  guard: EgressGuard;
  /** Cap on the body, both as sent and after decompression. */
  maxBytes: number;
  maxRedirects: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const REQUEST_HEADERS = {
  "user-agent": "Mozilla/5.0 (compatible; Winnow/0.1; +https://winnow.dev/bot)",
  accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.1",
  "accept-encoding": ACCEPT_ENCODING,
};

/** What the static path fetched: the final URL and status and the decoded body. */
export interface FetchedPage extends PageContent {
  finalUrl: string;
  status: number;
}

/** Sites whose connections are kept, and connections kept per site and address. */
const MAX_POOLS = 256;
const CONNECTIONS_PER_POOL = 8;

/**
 * The static path: a plain HTTP GET with undici, no JavaScript. Every hop's
 * host is pinned by the egress guard and the socket dials exactly that address
 * (the connector's lookup answers from the pin and never asks DNS). Redirects
 * are followed here, hop by hop, so each one is checked; the body is capped
 * before and after decompression, and the caller's signal bounds it all.
 *
 * Connections are kept alive per origin and checked address: a site scraped
 * again skips the TCP and TLS handshakes, but only when the guard pinned the
 * same address this time too, so a name that now points elsewhere never
 * rides an old connection.
 */
export class StaticFetcher {
  readonly #pools = new LRUCache<string, Pool>({
    max: MAX_POOLS,
    dispose: (pool) => void pool.close().catch(() => undefined),
  });

  constructor(private readonly options: StaticFetchOptions) {}

  async fetch(url: URL, signal: AbortSignal): Promise<FetchedPage> {
    try {
      let current = url;
      for (let hop = 0; ; hop++) {
        const target = await abortable(this.options.guard.pinUrl(current), signal);
        const response = await request(current, {
          dispatcher: this.#poolFor(current, target),
          signal,
          headers: REQUEST_HEADERS,
          method: "GET",
        });
        const location = response.headers.location;
        if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === "string") {
          await discard(response.body);
          if (hop >= this.options.maxRedirects) {
            throw new WinnowError(
              "target-unreachable",
              `the page redirected more than ${this.options.maxRedirects} times`,
            );
          }
          current = nextHop(current, location);
          continue;
        }
        if (response.statusCode >= 400) {
          await discard(response.body);
          throw new WinnowError("target-http-error", `the target answered HTTP ${response.statusCode}`, {
            targetStatus: response.statusCode,
          });
        }
        const contentType = header(response.headers["content-type"]);
        const body = await this.#readBody(response.body, header(response.headers["content-encoding"]), signal);
        const content = pageContent(contentType, (label) => decodeDocument(body, label));
        return { ...content, finalUrl: current.href, status: response.statusCode };
      }
    } catch (error) {
      if (signal.aborted && !(error instanceof WinnowError))
        throw new WinnowError("target-timeout", "the page did not load within the time limit");
      if (error instanceof WinnowError) throw error;
      throw new WinnowError("target-unreachable", `could not fetch the page (${codeOf(error)})`, { cause: error });
    }
  }

  /** Closes every kept connection (requests under way finish first). */
  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => undefined)));
  }

  #poolFor(url: URL, target: PinnedTarget): Pool {
    const key = `${url.origin} ${target.address}`;
    let pool = this.#pools.get(key);
    if (!pool) {
      pool = new Pool(url.origin, { connections: CONNECTIONS_PER_POOL, connect: { lookup: pinnedLookup(target) } });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /** Reads the body, decompressing it, and stops as soon as either size passes the cap. */
  async #readBody(raw: Readable, encoding: string, signal: AbortSignal): Promise<Buffer> {
    let decoder: ReturnType<typeof decoderFor>;
    try {
      decoder = decoderFor(encoding);
    } catch (error) {
      raw.destroy();
      throw error;
    }
    const { maxBytes } = this.options;
    const chunks: Buffer[] = [];
    try {
      const stages: Readable[] = [raw, byteCap(maxBytes), ...(decoder ? [decoder, byteCap(maxBytes)] : [])];
      await pipeline([
        ...stages,
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            chunks.push(chunk);
            done();
          },
        }),
      ]);
    } catch (error) {
      if (error instanceof WinnowError || signal.aborted) throw error;
      throw (
        decodingProblem(error, encoding) ??
        new WinnowError("target-unreachable", `the page body could not be read (${codeOf(error)})`, { cause: error })
      );
    }
    return Buffer.concat(chunks);
  }
}

/** Drops a body we will not read; undici closes the connection when it is long. */
async function discard(body: { dump(options?: { limit?: number }): Promise<void> }): Promise<void> {
  await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

function nextHop(from: URL, location: string): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new WinnowError("target-unreachable", "the page redirected to an invalid URL");
  }
}

function header(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** DNS lookups cannot be cancelled, but the render need not wait for one past its time budget. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new WinnowError("target-timeout", "the page did not load within the time limit"));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

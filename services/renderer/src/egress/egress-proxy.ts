import http from "node:http";
import net from "node:net";
import type { Duplex, Readable } from "node:stream";
import { pipeline } from "node:stream";
import { type Logger, WinnowError } from "@winnow/platform";
import type { EgressGuard, PinnedTarget } from "./egress.js";

/** Set on the proxy's own refusals, so the renderer can tell them from a site's 403. */
export const REFUSED_HEADER = "x-winnow-egress-refused";

/** Request headers that describe the hop to the proxy, not the request itself. */
const HOP_HEADERS = new Set([
  "proxy-connection",
  "proxy-authorization",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
]);

/**
 * The only way out for the browser: Chromium is launched with this proxy for
 * every scheme and with loopback not bypassed. Each request's host is resolved
 * once by the egress guard and the connection goes to the address it checked,
 * so redirects, sub-resources, WebSockets, workers and WebRTC over TCP all meet
 * the same guard, and DNS rebinding finds nothing to rebind. HTTPS and WSS are
 * tunnelled (CONNECT) to the checked address; TLS stays end to end.
 */
export class EgressProxy {
  readonly #tunnels = new Set<Duplex>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly maxResponseBytes: number,
  ) {}

  /** `maxResponseBytes` caps what one response (or one tunnel) may bring in, bombs included. */
  static async start(guard: EgressGuard, logger: Logger, maxResponseBytes: number): Promise<EgressProxy> {
    const server = http.createServer();
    const port = await new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
    const proxy = new EgressProxy(server, `http://127.0.0.1:${port}`, maxResponseBytes);
    server.on("request", (req, res) => void proxy.#forward(guard, req, res));
    server.on("connect", (req, socket, head) => void proxy.#tunnel(guard, req, socket, head));
    // Plain "Upgrade" requests are never tunnelled: Chromium sends WebSockets through CONNECT.
    server.on("upgrade", (_req, socket) => socket.destroy());
    server.on("clientError", (_error, socket) => socket.destroy());
    logger.info({ url: proxy.url }, "egress proxy listening");
    return proxy;
  }

  async close(): Promise<void> {
    for (const socket of this.#tunnels) socket.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async #forward(guard: EgressGuard, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return refuse(res, 400, "only absolute-form proxy requests are accepted");
    }
    if (url.protocol !== "http:") return refuse(res, 400, "only http is forwarded; https goes through CONNECT");
    let target: PinnedTarget;
    try {
      target = await guard.pinUrl(url);
    } catch (error) {
      return refusal(res, error);
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_HEADERS.has(name)));
    const upstream = http.request({
      host: target.address,
      family: target.family,
      port: Number(url.port || 80),
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
    });
    upstream.on("response", (answer) => {
      this.#capBytes(answer, () => res.destroy());
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      pipeline(answer, res, () => undefined);
    });
    upstream.on("error", () => {
      if (!res.headersSent) refuse(res, 502, `could not reach ${url.hostname}`);
      else res.destroy();
    });
    pipeline(req, upstream, () => undefined);
  }

  async #tunnel(guard: EgressGuard, req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.#track(client);
    client.on("error", () => client.destroy());
    let hostname: string;
    let port: number;
    try {
      const parsed = new URL(`http://${req.url ?? ""}`);
      hostname = parsed.hostname;
      port = Number(parsed.port);
      if (!port || parsed.pathname !== "/" || parsed.username) throw new Error("not host:port");
    } catch {
      return endTunnel(client, 400, "CONNECT needs host:port");
    }
    let target: PinnedTarget;
    try {
      target = await guard.pin(hostname, port);
    } catch (error) {
      return endTunnel(
        client,
        error instanceof WinnowError && error.type === "url-not-allowed" ? 403 : 502,
        reasonOf(error),
      );
    }
    if (client.destroyed) return;
    const upstream = net.connect({ host: target.address, family: target.family, port });
    this.#track(upstream);
    this.#capBytes(upstream, () => client.destroy());
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      pipeline(client, upstream, () => undefined);
      pipeline(upstream, client, () => undefined);
    });
    upstream.once("error", () => endTunnel(client, 502, `could not reach ${hostname}`));
    client.once("close", () => upstream.destroy());
  }

  /** Cuts a response off once it has brought in more than the cap. */
  #capBytes(incoming: Readable, cut: () => void): void {
    let bytes = 0;
    incoming.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > this.maxResponseBytes) {
        incoming.destroy();
        cut();
      }
    });
  }

  #track(socket: Duplex): void {
    this.#tunnels.add(socket);
    socket.once("close", () => this.#tunnels.delete(socket));
  }
}

function reasonOf(error: unknown): string {
  // Guard messages name hosts only; anything else is summarized, never echoed.
  return error instanceof WinnowError ? error.message : "the request could not be forwarded";
}

function refusal(res: http.ServerResponse, error: unknown): void {
  const status = error instanceof WinnowError && error.type === "url-not-allowed" ? 403 : 502;
  refuse(res, status, reasonOf(error));
}

function refuse(res: http.ServerResponse, status: number, reason: string): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    [REFUSED_HEADER]: encodeURIComponent(reason),
    connection: "close",
  });
  res.end(reason);
}

function endTunnel(client: Duplex, status: number, reason: string): void {
  if (client.destroyed) return;
  client.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${REFUSED_HEADER}: ${encodeURIComponent(reason)}\r\nconnection: close\r\n\r\n`,
  );
}

import http from "node:http";
import net from "node:net";
import type { Duplex, Readable } from "node:stream";
import { pipeline } from "node:stream";
import type { EgressGuard, PinnedTarget } from "@winnow/platform";
import { type Logger, untraced, WinnowError } from "@winnow/platform";
import { ACCEPT_ENCODING, byteCap, decoderFor, decodingProblem } from "../content-encoding.js";

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

export interface EgressLimits {
  /** Cap on one response's body, both as sent and decoded: the page-size limit. */
  maxResponseBytes: number;
  /** Cap on what one tunnel (HTTPS, WSS: one connection, many requests) may bring in. */
  maxTunnelBytes: number;
}

/** Where a listener's problems go: a session keeps them, the shared listener has no one to tell. */
type ProblemSink = (url: string, problem: WinnowError) => void;

/**
 * The only way out for the browser: Chromium is launched with this proxy for
 * every scheme and with loopback not bypassed. Each request's host is resolved
 * once by the egress guard and the connection goes to the address it checked,
 * so redirects, sub-resources, WebSockets, workers and WebRTC over TCP all meet
 * the same guard, and DNS rebinding finds nothing to rebind. HTTPS and WSS are
 * tunnelled (CONNECT) to the checked address; TLS stays end to end.
 *
 * Plain HTTP responses are decoded here (Accept-Encoding offers only what
 * can be) and capped as decoded, so a small compressed "bomb" never reaches
 * the browser inflated. Each render gets a session: a listener of its own,
 * which keeps the proxy's refusals and cut-off responses for the renderer to
 * ask about, out of band; nothing a site sends can pass for one.
 */
export class EgressProxy {
  private constructor(
    private readonly shared: ProxyListener,
    private readonly open: (sink: ProblemSink) => Promise<ProxyListener>,
  ) {}

  static async start(guard: EgressGuard, logger: Logger, limits: EgressLimits): Promise<EgressProxy> {
    const open = (sink: ProblemSink) => ProxyListener.start(guard, limits, sink);
    const proxy = new EgressProxy(await open(() => undefined), open);
    logger.info({ url: proxy.url }, "egress proxy listening");
    return proxy;
  }

  /** The browser-wide proxy: a backstop for any request no session carries. */
  get url(): string {
    return this.shared.url;
  }

  /** A proxy endpoint for one render's browser context, which records the proxy's verdicts on its requests. */
  async openSession(): Promise<EgressSession> {
    const problems = new Map<string, WinnowError>();
    const watchers: ProblemSink[] = [];
    const listener = await this.open((url, problem) => {
      problems.set(url, problem);
      for (const watcher of watchers) watcher(url, problem);
    });
    return {
      url: listener.url,
      problemWith: (url) => problems.get(withoutFragment(url)),
      onProblem: (watcher) => void watchers.push(watcher),
      close: () => listener.close(),
    };
  }

  async close(): Promise<void> {
    await this.shared.close();
  }
}

/** One render's view of the proxy: what it refused or cut off, by URL (without its fragment). */
export interface EgressSession {
  /** The proxy endpoint for the render's browser context. */
  readonly url: string;
  /** Why the proxy refused or cut off this URL's response, if it did. */
  problemWith(url: string): WinnowError | undefined;
  /** Called for each problem from now on. */
  onProblem(watcher: (url: string, problem: WinnowError) => void): void;
  close(): Promise<void>;
}

/** A URL as the proxy sees it: browsers never send the fragment. */
export function withoutFragment(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = "";
    return parsed.href;
  } catch {
    return url;
  }
}

/** One listening socket of the proxy, with the connections it opened. */
class ProxyListener {
  readonly #tunnels = new Set<Duplex>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly guard: EgressGuard,
    private readonly limits: EgressLimits,
    private readonly problem: ProblemSink,
  ) {}

  static async start(guard: EgressGuard, limits: EgressLimits, sink: ProblemSink): Promise<ProxyListener> {
    // Its traffic is the targets': no spans of scraped URLs, and no trace context handed to them.
    const server = untraced(http.createServer());
    const port = await new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
    const listener = new ProxyListener(server, `http://127.0.0.1:${port}`, guard, limits, sink);
    server.on("request", (req, res) => void listener.#forward(req, res));
    server.on("connect", (req, socket, head) => void listener.#tunnel(req, socket, head));
    // Plain "Upgrade" requests are never tunnelled: Chromium sends WebSockets through CONNECT.
    server.on("upgrade", (_req, socket) => socket.destroy());
    server.on("clientError", (_error, socket) => socket.destroy());
    return listener;
  }

  async close(): Promise<void> {
    for (const socket of this.#tunnels) socket.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  async #forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return refuse(res, 400, "only absolute-form proxy requests are accepted");
    }
    if (url.protocol !== "http:") return refuse(res, 400, "only http is forwarded; https goes through CONNECT");
    const refused = (status: number, problem: WinnowError) => {
      this.problem(url.href, problem);
      refuse(res, status, problem.message);
    };
    let target: PinnedTarget;
    try {
      target = await this.guard.pinUrl(url);
    } catch (error) {
      return refused(
        error instanceof WinnowError && error.type === "url-not-allowed" ? 403 : 502,
        error instanceof WinnowError
          ? error
          : new WinnowError("target-unreachable", "the request could not be forwarded", { cause: error }),
      );
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_HEADERS.has(name)));
    const upstream = http.request({
      host: target.address,
      family: target.family,
      port: Number(url.port || 80),
      method: req.method,
      path: `${url.pathname}${url.search}`,
      // Only codings the proxy can decode, so every body's decoded size is known here.
      headers: { ...headers, "accept-encoding": ACCEPT_ENCODING },
      setHost: false,
    });
    upstream.on("response", (answer) => {
      const encoding = answer.headers["content-encoding"] ?? "";
      const status = answer.statusCode ?? 502;
      const bodyless = req.method === "HEAD" || status === 204 || status === 304;
      let decoder: ReturnType<typeof decoderFor>;
      try {
        decoder = bodyless ? undefined : decoderFor(encoding);
      } catch (error) {
        answer.destroy();
        return refused(502, error as WinnowError);
      }
      res.writeHead(status, decodedHeaders(answer.rawHeaders, decoder !== undefined));
      const cap = this.limits.maxResponseBytes;
      const stages: Readable[] = [answer, byteCap(cap), ...(decoder ? [decoder, byteCap(cap)] : [])];
      pipeline([...stages, res], (error) => {
        if (!error) return;
        // The browser sees the response cut off; the renderer learns why from the session.
        const problem = error instanceof WinnowError ? error : decodingProblem(error, encoding);
        if (problem) this.problem(url.href, problem);
      });
    });
    upstream.on("error", (error) => {
      if (!res.headersSent)
        refused(502, new WinnowError("target-unreachable", `could not reach ${url.hostname}`, { cause: error }));
      else res.destroy();
    });
    pipeline(req, upstream, () => undefined);
  }

  async #tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
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
      return endTunnel(client, 400);
    }
    let target: PinnedTarget;
    try {
      target = await this.guard.pin(hostname, port);
    } catch (error) {
      return endTunnel(client, error instanceof WinnowError && error.type === "url-not-allowed" ? 403 : 502);
    }
    if (client.destroyed) return;
    const upstream = net.connect({ host: target.address, family: target.family, port });
    this.#track(upstream);
    this.#capTunnel(upstream, () => client.destroy());
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      pipeline(client, upstream, () => undefined);
      pipeline(upstream, client, () => undefined);
    });
    upstream.once("error", () => endTunnel(client, 502));
    client.once("close", () => upstream.destroy());
  }

  /** Cuts a tunnel off once it has brought in more than its cap; what it carries is encrypted, so only as sent. */
  #capTunnel(incoming: Readable, cut: () => void): void {
    let bytes = 0;
    incoming.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > this.limits.maxTunnelBytes) {
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

/**
 * Response headers as forwarded: bodies reach the browser decoded, so the
 * coding never describes them, nor the length once a body was decoded here.
 */
function decodedHeaders(rawHeaders: string[], decoded: boolean): string[] {
  const dropped = new Set(decoded ? ["content-encoding", "content-length"] : ["content-encoding"]);
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!dropped.has(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return kept;
}

function refuse(res: http.ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(reason);
}

function endTunnel(client: Duplex, status: number): void {
  if (client.destroyed) return;
  client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nconnection: close\r\n\r\n`);
}

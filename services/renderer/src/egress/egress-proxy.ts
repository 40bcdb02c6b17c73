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

/**
 * How long a server other than the page's own may stay silent, from the moment it is dialled or asked, before the
 * proxy cuts it off while the page is being parsed: a script in a page's head holds the parser until it arrives, and
 * Chromium waits for it without end, so one third-party host that accepts and never answers held a render until its
 * deadline. Once the page is parsed, what it asks for (an API its scripts read the content from) may take the
 * render's time. Once one of its
 * requests is cut off, the host's further requests in the render are refused at once: Chromium queues a host's
 * requests six connections at a time, so a dozen scripts from it would each wait their turn to be cut off.
 */
const THIRD_PARTY_SILENCE_MS = 3000;

/**
 * What a listener tells and asks its session: a session keeps the problems and knows the render's documents; the
 * shared listener has no one to tell and bounds nothing.
 */
interface SessionSink {
  problem(url: string, problem: WinnowError): void;
  /**
   * Whether requests to this host:port are held to THIRD_PARTY_SILENCE_MS: none of the page's documents is there, and
   * the page is still being parsed.
   */
  heldToSilence(hostname: string, port: number): boolean;
  /** A third party was cut off for silence ... */
  wentSilent(hostname: string, port: number): void;
  /** ... and is refused from then on. */
  silent(hostname: string, port: number): boolean;
}

const NO_SESSION: SessionSink = {
  problem: () => undefined,
  heldToSilence: () => false,
  wentSilent: () => undefined,
  silent: () => false,
};

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
    private readonly open: (sink: SessionSink) => Promise<ProxyListener>,
  ) {}

  static async start(guard: EgressGuard, logger: Logger, limits: EgressLimits): Promise<EgressProxy> {
    const open = (sink: SessionSink) => ProxyListener.start(guard, limits, sink);
    const proxy = new EgressProxy(await open(NO_SESSION), open);
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
    const watchers: ((url: string, problem: WinnowError) => void)[] = [];
    const documents = new Set<string>();
    const documentHosts = new Set<string>();
    const silentHosts = new Set<string>();
    let parsed = false;
    const listener = await this.open({
      problem(url, problem) {
        problems.set(url, problem);
        for (const watcher of watchers) watcher(url, problem);
      },
      heldToSilence: (hostname, port) => !parsed && !documentHosts.has(hostPort(hostname, port)),
      wentSilent: (hostname, port) => void silentHosts.add(hostPort(hostname, port)),
      silent: (hostname, port) => silentHosts.has(hostPort(hostname, port)),
    });
    return {
      url: listener.url,
      problemWith: (url) => problems.get(withoutFragment(url)),
      onProblem: (watcher) => void watchers.push(watcher),
      addDocument(url) {
        const parsed = new URL(url);
        documents.add(withoutFragment(url));
        documentHosts.add(hostPort(parsed.hostname, Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80))));
      },
      isDocument: (url) => documents.has(withoutFragment(url)),
      pageParsed() {
        parsed = true;
      },
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
  /** One of the page's own documents (before its request reaches the proxy): its host is never cut off for silence. */
  addDocument(url: string): void;
  isDocument(url: string): boolean;
  /** The page reached DOM ready: no third party is cut off for silence from now on. */
  pageParsed(): void;
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

const hostPort = (hostname: string, port: number) => `${hostname.replace(/^\[|\]$/g, "").toLowerCase()}|${port}`;

/** One listening socket of the proxy, with the connections it opened. */
class ProxyListener {
  readonly #tunnels = new Set<Duplex>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly guard: EgressGuard,
    private readonly limits: EgressLimits,
    private readonly session: SessionSink,
  ) {}

  static async start(guard: EgressGuard, limits: EgressLimits, sink: SessionSink): Promise<ProxyListener> {
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
      this.session.problem(url.href, problem);
      refuse(res, status, problem.message);
    };
    const port = Number(url.port || 80);
    if (this.session.silent(url.hostname, port)) return refused(504, silenceProblem(url.hostname));
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
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      // Only codings the proxy can decode, so every body's decoded size is known here.
      headers: { ...headers, "accept-encoding": ACCEPT_ENCODING },
      setHost: false,
    });
    if (this.session.heldToSilence(url.hostname, port)) {
      const silence = setTimeout(() => {
        if (!this.session.heldToSilence(url.hostname, port)) return;
        this.session.wentSilent(url.hostname, port);
        upstream.destroy(silenceProblem(url.hostname));
      }, THIRD_PARTY_SILENCE_MS);
      upstream.once("response", () => clearTimeout(silence));
      upstream.once("close", () => clearTimeout(silence));
    }
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
        if (problem) this.session.problem(url.href, problem);
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
    if (this.session.silent(hostname, port)) return endTunnel(client, 504);
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
    const silence = this.session.heldToSilence(hostname, port)
      ? cutOffWhenSilent(client, upstream, () => {
          if (!this.session.heldToSilence(hostname, port)) return false;
          this.session.wentSilent(hostname, port);
          return true;
        })
      : undefined;
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      silence?.watchClient();
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
 * Cuts a tunnel off when its server stays silent for THIRD_PARTY_SILENCE_MS after it was dialled or sent something:
 * the clock starts at the dial and whenever the client sends while the server owes an answer, and stops when the
 * server sends. A tunnel idle on both sides (a connection kept alive) is never cut, nor one `cutOff` declines.
 */
function cutOffWhenSilent(client: Duplex, upstream: Duplex, cutOff: () => boolean): { watchClient(): void } {
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      if (!cutOff()) return;
      upstream.destroy();
      client.destroy();
    }, THIRD_PARTY_SILENCE_MS);
  };
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  start();
  upstream.on("data", stop);
  upstream.once("close", stop);
  // Attached once the tunnel is up, beside its pipe, so no byte the client sends is read before the pipe.
  return { watchClient: () => void client.on("data", start) };
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

function silenceProblem(hostname: string): WinnowError {
  return new WinnowError("target-timeout", `${hostname} sent nothing for ${THIRD_PARTY_SILENCE_MS / 1000} s`);
}

function refuse(res: http.ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(reason);
}

function endTunnel(client: Duplex, status: number): void {
  if (client.destroyed) return;
  client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nconnection: close\r\n\r\n`);
}

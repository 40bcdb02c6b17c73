import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** What the upstream does with one request. */
type UpstreamAction =
  | { status: number; headers?: Record<string, string>; body?: string }
  | "forward"
  | "hang"
  | "destroy";

/**
 * A server in front of the real gateway that a client test can script: the
 * next requests fail as told (429, 503, a dropped connection, no answer),
 * then it forwards to the gateway. Lets client tests prove retries against
 * the real stack.
 */
export async function startScriptedUpstream(target: string) {
  const script: UpstreamAction[] = [];
  const seen: { method: string; url: string; headers: IncomingMessage["headers"] }[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const action = script.shift() ?? "forward";
    if (action === "hang") return;
    if (action === "destroy") return req.socket.destroy();
    if (action === "forward") {
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length"),
        ) as Record<string, string>,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const headers = Object.fromEntries(
        [...upstream.headers].filter(([k]) => !["content-length", "content-encoding", "transfer-encoding"].includes(k)),
      );
      res.writeHead(upstream.status, headers);
      return res.end(Buffer.from(await upstream.arrayBuffer()));
    }
    res.writeHead(action.status, { "content-type": "application/problem+json", ...action.headers });
    res.end(
      action.body ?? JSON.stringify({ type: "about:blank", title: `scripted ${action.status}`, status: action.status }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Actions for the next requests, in order; afterwards requests are forwarded. */
    script,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

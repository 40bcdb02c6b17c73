import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

/** Connections of servers whose requests are never traced (read by the telemetry preload). */
const untracedSockets = new WeakSet<Socket>();

/**
 * Keeps a server's requests out of traces: no span records them, none takes
 * a trace context from them, and what their handlers send out carries none.
 * For traffic that is a third party's, such as the renderer's egress proxy.
 */
export function untraced<S extends Server>(server: S): S {
  server.on("connection", (socket: Socket) => untracedSockets.add(socket));
  return server;
}

export function isUntraced(request: IncomingMessage): boolean {
  return untracedSockets.has(request.socket);
}

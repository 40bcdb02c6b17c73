import type { RequestListener } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RunningHttpServer {
  port: number;
  /** Stops accepting connections, lets in-flight requests finish within graceMs, then drops the rest. */
  close(graceMs: number): Promise<void>;
}

export async function startHttpServer(
  handler: RequestListener,
  host: string,
  port: number,
): Promise<RunningHttpServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close(graceMs) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

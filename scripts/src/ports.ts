import { createServer } from "node:net";

/** Ports the OS says are free right now (bound to 127.0.0.1:0, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import("node:net").Server>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Where a server of the stack will listen, and the variable that chooses its port. */
export interface PlannedPort {
  host: string;
  port: number;
  variable: string;
}

/** Those of `planned` that something else holds now (a listen on them fails with EADDRINUSE). */
export async function portsInUse(planned: PlannedPort[]): Promise<PlannedPort[]> {
  const taken = await Promise.all(
    planned.map(
      ({ host, port }) =>
        new Promise<boolean>((resolve, reject) => {
          const server = createServer();
          server.once("error", (error: NodeJS.ErrnoException) =>
            error.code === "EADDRINUSE" ? resolve(true) : reject(error),
          );
          server.listen(port, host, () => server.close(() => resolve(false)));
        }),
    ),
  );
  return planned.filter((_, i) => taken[i]);
}

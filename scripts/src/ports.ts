import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * Where ports are chosen: below the range the OS hands out for port 0 and for outgoing connections (Linux's
 * ip_local_port_range). A port the OS chose once is free only until it hands it out again, and on a machine running
 * two test files at once, to a client connection of the other between the check and the listen (EADDRINUSE).
 */
const FIRST_PORT = 10_000;
const EPHEMERAL_FROM = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
})();

/** Whether `port` can be listened on at 127.0.0.1 right now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** `count` distinct ports free right now on 127.0.0.1, picked at random outside the OS's ephemeral range. */
export async function freePorts(count: number): Promise<number[]> {
  const chosen = new Set<number>();
  while (chosen.size < count) {
    const port = FIRST_PORT + Math.floor(Math.random() * (EPHEMERAL_FROM - FIRST_PORT));
    if (!chosen.has(port) && (await isFree(port))) chosen.add(port);
  }
  return [...chosen];
}

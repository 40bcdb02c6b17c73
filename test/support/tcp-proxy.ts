import type { AddressInfo } from "node:net";
import net from "node:net";

/**
 * A TCP proxy on 127.0.0.1 in front of a service, to break the network
 * between two processes the way networks break: `cut` resets every
 * connection and refuses new ones; `blackhole` keeps connections open but
 * lets nothing through (a half-open link), holding what is sent; `restore`
 * forwards again, held bytes first.
 */
export interface TcpProxy {
  port: number;
  cut(): void;
  blackhole(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket | undefined;
  flowing: boolean;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let mode: "open" | "cut" | "blackhole" = "open";
  const links = new Set<Link>();

  const forward = (link: Link) => {
    if (link.flowing) return;
    link.flowing = true;
    if (!link.upstream) {
      link.upstream = net.connect(targetPort, "127.0.0.1");
      link.upstream.on("error", () => drop(link)).on("close", () => drop(link));
    }
    link.client.pipe(link.upstream);
    link.upstream.pipe(link.client);
    link.client.resume();
  };
  const hold = (link: Link) => {
    link.flowing = false;
    link.client.unpipe();
    link.upstream?.unpipe();
    link.client.pause();
    link.upstream?.pause();
  };
  const drop = (link: Link) => {
    link.client.destroy();
    link.upstream?.destroy();
    links.delete(link);
  };

  const server = net.createServer((client) => {
    client.on("error", () => undefined);
    if (mode === "cut") return void client.destroy();
    const link: Link = { client, upstream: undefined, flowing: false };
    links.add(link);
    client.on("close", () => drop(link));
    if (mode === "open") forward(link);
    else client.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      mode = "cut";
      for (const link of links) drop(link);
    },
    blackhole() {
      mode = "blackhole";
      for (const link of links) hold(link);
    },
    restore() {
      mode = "open";
      for (const link of links) forward(link);
    },
    async close() {
      for (const link of links) drop(link);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

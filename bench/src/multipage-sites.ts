/**
 * The multi-page corpus's own server (`../shared/tools/serve_sites.py`), one process per site, each on a port the OS
 * says is free: fixed ports collide with another run of the same benchmark on the machine. Each site is reached through
 * a small proxy of the bench's own that notes every URL asked for, so the bench knows exactly which pages a whole
 * listing read.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import path from "node:path";
import { createInterface } from "node:readline";
import { freePorts } from "@winnow/scripts/ports";

export interface SiteServers {
  /** Each site's origin (`http://127.0.0.1:PORT`), by site name. */
  mapping: Record<string, string>;
  /** Every URL asked of the sites so far, in the order asked. */
  requested: string[];
  stop(): void;
}

export async function serveSites(script: string, splitDir: string): Promise<SiteServers> {
  const names = Object.keys(JSON.parse(await readFile(path.join(splitDir, "sites.json"), "utf8")) as object).sort();
  const ports = await freePorts(names.length);
  const children: ChildProcess[] = [];
  const proxies: Server[] = [];
  const requested: string[] = [];
  const stop = () => {
    for (const child of children) child.kill();
    for (const proxy of proxies) proxy.close();
  };
  try {
    const origins = await Promise.all(
      names.map((name, i) => {
        const child = spawn("python3", [script, splitDir, String(ports[i]), "--site", name], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        children.push(child);
        return firstLine(child).then((line) => (JSON.parse(line) as Record<string, string>)[name]!);
      }),
    );
    const fronts = await Promise.all(
      origins.map(async (origin) => {
        const proxy = noting(origin, requested);
        proxies.push(proxy);
        await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
        return `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      }),
    );
    return { mapping: Object.fromEntries(names.map((name, i) => [name, fronts[i]!])), requested, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** serve_sites.py prints its mapping as its first line once it listens. */
async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new Error(`serve_sites.py exited without its mapping (code ${child.exitCode})`);
}

/** A proxy to `origin` that notes each URL asked for, as the asker named it. */
function noting(origin: string, requested: string[]): Server {
  const proxy = createServer((incoming, outgoing) => {
    requested.push(`http://${incoming.headers.host}${incoming.url}`);
    const forward = request(new URL(incoming.url ?? "/", origin), {
      method: incoming.method,
      headers: incoming.headers,
    });
    forward.on("response", (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forward.on("error", () => outgoing.destroy());
    incoming.pipe(forward);
  });
  return proxy;
}

/**
 * The least a hop between processes costs on this machine: one bare HTTP
 * round trip (Node's server, fetch as the client) and one bare grpc-js unary
 * round trip carrying a page's HTML, to servers in another process
 * (echo-servers.ts) that do nothing else. A lower bound for any hop of the
 * stack, wake-up of the other process included.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { ECHO_SERVICE } from "./echo-servers.js";

export interface HopFloor {
  /** p50 of a bare HTTP POST round trip, ms. */
  httpMs: number;
  /** p50 of a bare gRPC unary round trip carrying the payload both ways, ms. */
  grpcMs: number;
}

const ROUND_TRIPS = 600;
const WARM_UP = 100;

async function p50(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[times.length >> 1]!;
}

export async function measureHopFloor(payload: string): Promise<HopFloor> {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./echo-servers.js", import.meta.url))], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  try {
    const [line] = (await once(child.stdout, "data")) as [Buffer];
    const ports = JSON.parse(line.toString()) as { http: number; grpc: number };
    const httpUrl = `http://127.0.0.1:${ports.http}/`;
    const body = JSON.stringify({ url: httpUrl, schema: { name: "string" } });
    const httpMs = await p50(() =>
      fetch(httpUrl, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.text()),
    );

    const Client = grpc.makeGenericClientConstructor(ECHO_SERVICE, "Echo");
    const client = new Client(`127.0.0.1:${ports.grpc}`, grpc.credentials.createInsecure()) as unknown as {
      echo(message: Buffer, done: (error: Error | null, reply?: Buffer) => void): void;
      close(): void;
    };
    const message = Buffer.from(payload);
    const grpcMs = await p50(
      () => new Promise((resolve, reject) => client.echo(message, (e, r) => (e ? reject(e) : resolve(r)))),
    );
    client.close();
    return { httpMs, grpcMs };
  } finally {
    child.stdin.end();
    child.kill();
  }
}

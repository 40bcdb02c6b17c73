/**
 * The least a request through separate processes can cost on this machine:
 * one bare HTTP round trip (Node's server, fetch as the client) and one bare
 * grpc-js unary round trip carrying a page's HTML, each with nothing behind
 * it. Client and server share this process, so no cross-process wake-up is
 * counted either: a lower bound for any hop.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";

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
  const http = createServer((req, res) => req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}")));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
  const body = JSON.stringify({ url: httpUrl, schema: { name: "string" } });
  const httpMs = await p50(() => fetch(httpUrl, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.text()));
  http.close();

  const bytes = (b: Buffer) => b;
  const echo = { echo: { path: "/bench.Echo/Echo", requestStream: false, responseStream: false, requestSerialize: bytes, requestDeserialize: bytes, responseSerialize: bytes, responseDeserialize: bytes } };
  const server = new grpc.Server();
  server.addService(echo, { echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done(null, call.request) });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  const Client = grpc.makeGenericClientConstructor(echo, "Echo");
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as { echo: (b: Buffer, cb: (e: Error | null, r?: Buffer) => void) => void; close(): void };
  const message = Buffer.from(payload);
  const grpcMs = await p50(() => new Promise((resolve, reject) => client.echo(message, (e, r) => (e ? reject(e) : resolve(r)))));
  client.close();
  server.forceShutdown();
  return { httpMs, grpcMs };
}

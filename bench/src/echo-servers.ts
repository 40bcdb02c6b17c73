/**
 * A bare HTTP server and a bare gRPC echo server in a process of their own,
 * for hop-floor.ts: what one round trip to another process costs with
 * nothing behind it. Prints its two ports as JSON on stdout, then serves
 * until stdin closes.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";

export const ECHO_SERVICE = {
  echo: {
    path: "/bench.Echo/Echo",
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
} satisfies grpc.ServiceDefinition;

if (import.meta.url === `file://${process.argv[1]}`) {
  const http = createServer((req, res) =>
    req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}")),
  );
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const server = new grpc.Server();
  server.addService(ECHO_SERVICE, {
    echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done(null, call.request),
  });
  const grpcPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  process.stdout.write(`${JSON.stringify({ http: (http.address() as AddressInfo).port, grpc: grpcPort })}\n`);
  process.stdin.resume().on("end", () => process.exit(0));
}

import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthServiceClient, type AuthServiceServer, AuthServiceService } from "./gen/winnow/auth/v1/auth.js";
import { type AuthClient, createClient, grpcTarget, promiseClient } from "./grpc-client.js";
import { type RunningGrpcServer, startGrpcServer } from "./grpc-server.js";
import { createLogger } from "./logger.js";
import { WinnowError } from "./problems.js";

const TOKEN = "service-token-for-the-grpc-client-tests";

it("turns host:port into a dns:/// target and leaves full targets alone", () => {
  expect(grpcTarget("auth:50051")).toBe("dns:///auth:50051");
  expect(grpcTarget("127.0.0.1:50051")).toBe("dns:///127.0.0.1:50051");
  expect(grpcTarget("[::1]:50051")).toBe("dns:///[::1]:50051");
  expect(grpcTarget("dns:///auth.ns.svc:50051")).toBe("dns:///auth.ns.svc:50051");
  expect(grpcTarget("unix:///run/auth.sock")).toBe("unix:///run/auth.sock");
});

describe("promiseClient", () => {
  let server: RunningGrpcServer;
  let client: AuthClient;
  /** validateKey answers with the caller's x-probe metadata, or hangs for an api key of "hang" until cancelled. */
  let cancelled: Promise<void>;

  beforeAll(async () => {
    let noteCancelled: () => void;
    cancelled = new Promise((resolve) => (noteCancelled = resolve));
    const implementation = {
      validateKey(call: grpc.ServerUnaryCall<{ apiKey: string }, unknown>, callback: grpc.sendUnaryData<unknown>) {
        if (call.request.apiKey !== "hang") {
          callback(null, {
            valid: true,
            reason: 0,
            accountId: String(call.metadata.get("x-probe")[0] ?? ""),
            keyId: "key",
          });
          return;
        }
        call.on("cancelled", () => noteCancelled());
      },
    } as unknown as AuthServiceServer;
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      logger: createLogger("test", "silent"),
      callers: { service: TOKEN },
      services: [
        {
          name: "winnow.auth.v1.AuthService",
          definition: AuthServiceService,
          implementation,
          protoFile: "winnow/auth/v1/auth.proto",
        },
      ],
    });
    client = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${server.port}`, TOKEN));
  });
  afterAll(async () => {
    client?.grpc.close();
    await server?.shutdown(100);
  });

  it("has the unary methods as promises and the grpc-js client beside them, not the streams", () => {
    expect(typeof client.validateKey).toBe("function");
    expect(typeof client.recordUsageBatch).toBe("function");
    expect(client.grpc).toBeInstanceOf(grpc.Client);
    expect("watchRevocations" in client).toBe(false);
  });

  it("sends the caller's metadata", async () => {
    const metadata = new grpc.Metadata();
    metadata.set("x-probe", "probed");
    expect(await client.validateKey({ apiKey: "k" }, { metadata })).toMatchObject({ valid: true, accountId: "probed" });
  });

  it("answers failures as WinnowErrors", async () => {
    const error = await client.rotateKey({ accountId: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WinnowError);
  });

  it("refuses a call whose signal is already aborted, and cancels one when its signal aborts", async () => {
    const before = await client.validateKey({ apiKey: "k" }, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(WinnowError);
    const controller = new AbortController();
    const call = client.validateKey({ apiKey: "hang" }, { signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await call).toBeInstanceOf(WinnowError);
    await cancelled;
  });
});

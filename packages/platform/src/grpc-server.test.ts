import { createRequire } from "node:module";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { afterEach, describe, expect, it } from "vitest";
import { bearerToken } from "./caller-credentials.js";
import { loadConfig } from "./config.js";
import { AuthServiceClient, type AuthServiceServer, AuthServiceService } from "./gen/winnow/auth/v1/auth.js";
import { checkHealth, createClient, promiseClient } from "./grpc-client.js";
import { type GrpcServerOptions, type RunningGrpcServer, startGrpcServer, unary } from "./grpc-server.js";
import { createLogger } from "./logger.js";
import { WinnowError } from "./problems.js";
import { grpcServiceConfig, MAX_REQUEST_TIMEOUT_MS } from "./service-config.js";

const logger = createLogger("test", "silent");
const TOKENS = { gateway: "gateway-token-for-the-grpc-server-tests", admin: "admin-token-for-the-grpc-server-tests" };
const servers: RunningGrpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.shutdown(100)));
});

/** A server for the helper under test: its handlers wait, fail or answer as each test needs. */
async function serve(
  validateKey: (apiKey: string, signal: AbortSignal) => Promise<void>,
  options: Partial<Pick<GrpcServerOptions, "callers" | "maxConnectionAgeMs" | "maxConnectionAgeGraceMs">> = {},
) {
  const implementation: AuthServiceServer = {
    validateKey: unary(logger, async (request, ctx) => {
      await validateKey(request.apiKey, ctx.signal);
      return { valid: true, reason: 0, accountId: "acct", keyId: "key" };
    }),
    createAccount: unary(logger, async () => {
      throw new Error("secret internal detail");
    }),
    rotateKey: unary(logger, async () => {
      throw new WinnowError("not-found", "no such account", {
        violations: [{ path: "/account_id", description: "unknown" }],
      });
    }),
  };
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    callers: TOKENS,
    ...options,
    services: [
      {
        name: "winnow.auth.v1.AuthService",
        definition: AuthServiceService,
        implementation,
        protoFile: "winnow/auth/v1/auth.proto",
        callers: { rotateKey: ["admin"] },
      },
    ],
  });
  servers.push(server);
  const client = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${server.port}`, TOKENS.admin));
  return { server, client, address: `127.0.0.1:${server.port}` };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("startGrpcServer", () => {
  it("reports NOT_SERVING until the service says it is ready", async () => {
    const { server, address, client } = await serve(async () => undefined);
    expect(await checkHealth(address)).toBe("NOT_SERVING");
    expect(await checkHealth(client.grpc)).toBe("NOT_SERVING");
    expect(await checkHealth(address, "winnow.auth.v1.AuthService")).toBe("NOT_SERVING");
    server.setReady(true);
    expect(await checkHealth(address)).toBe("SERVING");
    expect(await checkHealth(address, "winnow.auth.v1.AuthService")).toBe("SERVING");
    expect(await checkHealth(address, "no.such.Service")).toBe("UNREACHABLE");
    // Over the client's own channel, which stays usable afterwards.
    expect(await checkHealth(client.grpc)).toBe("SERVING");
    expect(await client.validateKey({ apiKey: "k" })).toMatchObject({ valid: true });
  });

  it("carries a WinnowError across the wire with its type and violations", async () => {
    const { client } = await serve(async () => undefined);
    const error = await client.rotateKey({ accountId: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WinnowError);
    expect(error).toMatchObject({
      type: "not-found",
      message: "no such account",
      violations: [{ path: "/account_id", description: "unknown" }],
    });
  });

  it("answers an unexpected exception as internal without leaking its message", async () => {
    const { client } = await serve(async () => undefined);
    const error = (await client.createAccount({ email: "a@b.c" }).catch((e: unknown) => e)) as WinnowError;
    expect(error.type).toBe("internal");
    expect(error.message).not.toContain("secret internal detail");
  });

  it("aborts the handler's signal when the deadline passes, and the caller sees deadline-exceeded", async () => {
    let aborted = false;
    const { client } = await serve(async (_key, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      aborted = true;
    });
    const error = (await client
      .validateKey({ apiKey: "k" }, { deadline: new Date(Date.now() + 200) })
      .catch((e: unknown) => e)) as WinnowError;
    expect(error.type).toBe("deadline-exceeded");
    await sleep(50);
    expect(aborted).toBe(true);
  });

  it("drains an in-flight call on shutdown, and refuses new ones", async () => {
    const { server, client, address } = await serve(() => sleep(300));
    server.setReady(true);
    const inFlight = client.validateKey({ apiKey: "k" });
    await sleep(50);
    const stopped = server.shutdown(5_000);
    expect(await inFlight).toMatchObject({ valid: true, accountId: "acct" });
    await stopped;
    expect(await checkHealth(address)).toBe("UNREACHABLE");
  });

  it("cancels calls still running at the shutdown deadline", async () => {
    const { server, client } = await serve(() => sleep(10_000));
    const inFlight = client.validateKey({ apiKey: "k" }).catch((e: unknown) => e);
    await sleep(50);
    await server.shutdown(100);
    expect(((await inFlight) as WinnowError).type).toBe("backend-unavailable");
  });

  describe("a call on a connection past its maximum age", () => {
    /** A call that outlives its connection's age by far, on a client without keepalive pings: grpc-js cuts a call
     * still running on a connection the server aged out at the client's next ping (grpc/grpc-node#3068). */
    async function callOnAgedConnection(maxConnectionAgeGraceMs: number): Promise<unknown> {
      const { address } = await serve(() => sleep(CALL_MS), { maxConnectionAgeMs: 100, maxConnectionAgeGraceMs });
      const client = promiseClient(
        new AuthServiceClient(address, grpc.credentials.createInsecure(), {
          interceptors: [bearerToken(TOKENS.admin)],
        }),
      );
      try {
        return await client.validateKey({ apiKey: "k" }, { deadline: new Date(Date.now() + 20 * CALL_MS) });
      } catch (error) {
        return error;
      } finally {
        client.grpc.close();
      }
    }
    const CALL_MS = 1_500;

    it("finishes within the grace", async () => {
      expect(await callOnAgedConnection(10 * CALL_MS)).toMatchObject({ valid: true });
    });

    it("is cut once the grace is over (so the grace is what lets it finish)", async () => {
      expect(await callOnAgedConnection(CALL_MS / 5)).toBeInstanceOf(WinnowError);
    });

    it("has by default a grace that covers the longest request deadline (the old 30 s cut longer calls)", () => {
      const { GRPC_MAX_CONNECTION_AGE_GRACE_MS } = loadConfig(grpcServiceConfig({ grpcPort: 0, metricsPort: 0 }), {});
      expect(GRPC_MAX_CONNECTION_AGE_GRACE_MS).toBeGreaterThanOrEqual(MAX_REQUEST_TIMEOUT_MS);
    });
  });

  it("serves reflection listing the service and health", async () => {
    const { address } = await serve(async () => undefined);
    const reflectionProto = path.join(
      path.dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")),
      "build/proto/grpc/reflection/v1/reflection.proto",
    );
    const pkg = grpc.loadPackageDefinition(loadSync(reflectionProto, { keepCase: true })) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
    };
    const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure(), {
      interceptors: [bearerToken(TOKENS.gateway)],
    });
    const names = await new Promise<string[]>((resolve, reject) => {
      const stream = client.ServerReflectionInfo();
      stream.on("data", (msg: { list_services_response?: { service: { name: string }[] } }) => {
        resolve((msg.list_services_response?.service ?? []).map((s) => s.name));
        stream.end();
      });
      stream.on("error", reject);
      stream.write({ list_services: "" });
    });
    client.close();
    expect(names).toEqual(expect.arrayContaining(["winnow.auth.v1.AuthService", "grpc.health.v1.Health"]));
  });
});

describe("caller credentials", () => {
  /** The gRPC status a raw call ends with (no client-side interpretation). */
  const statusOf = (client: AuthServiceClient, call: "validateKey" | "rotateKey") =>
    new Promise<{ code: grpc.status; details: string }>((resolve) => {
      const done = (error: grpc.ServiceError | null) =>
        resolve({ code: error?.code ?? grpc.status.OK, details: error?.details ?? "" });
      if (call === "validateKey") client.validateKey({ apiKey: "k" }, done);
      else client.rotateKey({ accountId: "x" }, done);
    });
  const rawClient = (address: string, token?: string) =>
    token === undefined
      ? new AuthServiceClient(address, grpc.credentials.createInsecure())
      : createClient(AuthServiceClient, address, token);

  it("refuses a call without a credential, or with a token it does not know, as UNAUTHENTICATED", async () => {
    const { address } = await serve(async () => undefined);
    for (const token of [undefined, "not-the-token-of-any-role-at-all-xxxxxx", `${TOKENS.gateway}x`, ""]) {
      const client = rawClient(address, token);
      const status = await statusOf(client, "validateKey");
      client.close();
      expect(status.code, String(token)).toBe(grpc.status.UNAUTHENTICATED);
      expect(status.details).toMatch(/WINNOW_GATEWAY_TOKEN or WINNOW_ADMIN_TOKEN/);
    }
  });

  it("lets a role call only the methods its service allows it, and leaves health checks open", async () => {
    const { address, server } = await serve(async () => undefined);
    server.setReady(true);
    const gateway = rawClient(address, TOKENS.gateway);
    const admin = rawClient(address, TOKENS.admin);
    expect((await statusOf(gateway, "validateKey")).code).toBe(grpc.status.OK);
    expect(await statusOf(gateway, "rotateKey")).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      details:
        "the gateway credential may not call /winnow.auth.v1.AuthService/RotateKey (it needs WINNOW_ADMIN_TOKEN)",
    });
    // The admin's call reaches the handler (which answers not-found).
    expect((await statusOf(admin, "rotateKey")).code).toBe(grpc.status.NOT_FOUND);
    gateway.close();
    admin.close();
    // Kubernetes' gRPC probes send no metadata.
    expect(await checkHealth(address)).toBe("SERVING");
  });

  it("turns a refusal into an internal failure at the caller, never the end user's unauthorized", async () => {
    const { address } = await serve(async () => undefined);
    const client = promiseClient(createClient(AuthServiceClient, address, "a-token-the-server-does-not-know-xxxxxxx"));
    const error = (await client.validateKey({ apiKey: "k" }).catch((e: unknown) => e)) as WinnowError;
    client.grpc.close();
    expect(error.type).toBe("internal");
    expect(error.message).toMatch(
      /^a backend service refused the call: the credential is not one this service accepts/,
    );
  });

  it("accepts a role's previous token beside its new one while it rotates, with each role's rights", async () => {
    const previous = "the-gateway-token-before-the-rotation-xx";
    const { address } = await serve(async () => undefined, {
      callers: { gateway: [TOKENS.gateway, previous], admin: TOKENS.admin },
    });
    for (const token of [TOKENS.gateway, previous]) {
      const client = rawClient(address, token);
      expect((await statusOf(client, "validateKey")).code, token).toBe(grpc.status.OK);
      expect((await statusOf(client, "rotateKey")).code, token).toBe(grpc.status.PERMISSION_DENIED);
      client.close();
    }
    const stranger = rawClient(address, "not-the-token-of-any-role-at-all-xxxxxx");
    expect((await statusOf(stranger, "validateKey")).code).toBe(grpc.status.UNAUTHENTICATED);
    stranger.close();
  });

  it("refuses to start when two roles share a token", async () => {
    await expect(
      startGrpcServer({
        host: "127.0.0.1",
        port: 0,
        logger,
        callers: { gateway: TOKENS.gateway, admin: TOKENS.gateway },
        services: [],
      }),
    ).rejects.toThrow("WINNOW_GATEWAY_TOKEN and WINNOW_ADMIN_TOKEN hold the same token; each role needs its own");
    await expect(
      startGrpcServer({
        host: "127.0.0.1",
        port: 0,
        logger,
        callers: { gateway: [TOKENS.gateway, TOKENS.admin], admin: TOKENS.admin },
        services: [],
      }),
    ).rejects.toThrow("WINNOW_GATEWAY_TOKEN and WINNOW_ADMIN_TOKEN hold the same token; each role needs its own");
  });
});

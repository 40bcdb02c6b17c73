import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { bearerToken } from "./caller-credentials.js";
import type { AuthServiceClient } from "./gen/winnow/auth/v1/auth.js";
import type { ExtractorServiceClient } from "./gen/winnow/extractor/v1/extractor.js";
import type { JobsServiceClient } from "./gen/winnow/jobs/v1/jobs.js";
import type { RendererServiceClient } from "./gen/winnow/renderer/v1/renderer.js";
import { fromGrpcError } from "./grpc-errors.js";

/**
 * A bare host:port becomes dns:///host:port so every address the name
 * resolves to is used (headless Services in Kubernetes), balanced round robin.
 */
export function grpcTarget(address: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(address) && !/^[^:/]+:\d+$/.test(address) ? address : `dns:///${address}`;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  // grpc-js ends a call still running on a connection the server aged out at the next of these pings
  // (grpc/grpc-node#3068): until it is fixed, calls that outlive a connection's age by 30 s are cut whatever the grace.
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  // grpc-js waits 1 s after a failed connection, growing to two minutes, by default; a
  // backend that starts or comes back (and a gateway's revocation feed) should be used within seconds.
  "grpc.initial_reconnect_backoff_ms": 250,
  "grpc.max_reconnect_backoff_ms": 5_000,
  "grpc.max_receive_message_length": 64 * 1024 * 1024,
};

type ClientConstructor<C> = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options?: Partial<grpc.ClientOptions>,
) => C;

/** A client whose every call carries this caller token (the role's WINNOW_*_TOKEN). */
export function createClient<C>(Client: ClientConstructor<C>, address: string, token: string): C {
  return new Client(grpcTarget(address), grpc.credentials.createInsecure(), {
    ...CHANNEL_OPTIONS,
    interceptors: [bearerToken(token)],
  });
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

export interface CallOptions {
  /** Absolute deadline, normally the one the request arrived with. */
  deadline?: Date;
  signal?: AbortSignal;
  metadata?: grpc.Metadata;
}

/**
 * Calls a unary method as a promise; failures become WinnowErrors, and an
 * aborted signal cancels the call. promiseClient's methods call this.
 */
function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(
        fromGrpcError(
          Object.assign(new Error("cancelled"), {
            code: grpc.status.CANCELLED,
            details: "cancelled",
            metadata: new grpc.Metadata(),
          }),
        ),
      );
      return;
    }
    const call = method(
      request,
      options.metadata ?? new grpc.Metadata(),
      options.deadline ? { deadline: options.deadline } : {},
      (error, response) => {
        options.signal?.removeEventListener("abort", cancel);
        if (error) reject(fromGrpcError(error));
        else resolve(response);
      },
    );
    const cancel = () => call.cancel();
    options.signal?.addEventListener("abort", cancel, { once: true });
  });
}

/** The parameters of a generated unary method's last (fullest) overload, what conditional types infer from. */
type UnaryParameters<Req, Res> = [
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
];
type AsPromise<M> = M extends (...args: infer A) => grpc.ClientUnaryCall
  ? A extends UnaryParameters<infer Req, infer Res>
    ? (request: Req, options?: CallOptions) => Promise<Res>
    : never
  : never;

/**
 * A ts-proto generated grpc-js client with its unary methods as promises:
 * `await renderer.render(request, { deadline, signal })`. Failures are
 * WinnowErrors, as with callUnary. `grpc` is the client itself, for what is
 * not a unary call: streams, health checks over its channel, close().
 */
export type PromiseClient<C extends grpc.Client> = {
  readonly [K in keyof C as AsPromise<C[K]> extends never ? never : K]: AsPromise<C[K]>;
} & { readonly grpc: C };

/** Wraps a generated client (from createClient); the wrapper shares its channel. */
export function promiseClient<C extends grpc.Client>(client: C): PromiseClient<C> {
  // makeGenericClientConstructor keeps the service definition on the constructor.
  const { service } = client.constructor as { service?: grpc.ServiceDefinition };
  if (!service)
    throw new TypeError("promiseClient wants a generated client: its constructor has no service definition");
  const methods = Object.entries(service)
    .filter(([, definition]) => !definition.requestStream && !definition.responseStream)
    .map(([name]) => {
      const method = (client as unknown as Record<string, UnaryMethod<unknown, unknown>>)[name]!.bind(client);
      return [name, (request: unknown, options?: CallOptions) => callUnary(method, request, options)];
    });
  return Object.freeze({ ...Object.fromEntries(methods), grpc: client }) as PromiseClient<C>;
}

export type HealthStatus = "SERVING" | "NOT_SERVING" | "UNKNOWN" | "SERVICE_UNKNOWN" | "UNREACHABLE";

const HealthClient = grpc.makeGenericClientConstructor(healthService, "Health");

/**
 * grpc.health.v1 Check against a server: "UNREACHABLE" when nothing answers
 * within timeoutMs. Pass an existing client to check over its own channel
 * (what a readiness probe should test); otherwise a channel is opened for
 * this one check.
 */
export function checkHealth(target: string | grpc.Client, service = "", timeoutMs = 1000): Promise<HealthStatus> {
  const client =
    typeof target === "string"
      ? new HealthClient(grpcTarget(target), grpc.credentials.createInsecure())
      : new HealthClient("unused", grpc.credentials.createInsecure(), { channelOverride: target.getChannel() });
  return new Promise<HealthStatus>((resolve) => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      (value: { service: string }) => healthService.Check!.requestSerialize(value),
      (bytes: Buffer) => healthService.Check!.responseDeserialize(bytes) as { status: HealthStatus },
      { service },
      new grpc.Metadata(),
      { deadline: Date.now() + timeoutMs },
      (error, response) => {
        // Closing a client that borrowed a channel would close that channel for its owner too.
        if (typeof target === "string") client.close();
        resolve(error || !response ? "UNREACHABLE" : response.status);
      },
    );
  });
}

/** The backends' promise clients: promiseClient(createClient(AuthServiceClient, address, token)) and so on. */
export type AuthClient = PromiseClient<AuthServiceClient>;
export type RendererClient = PromiseClient<RendererServiceClient>;
export type ExtractorClient = PromiseClient<ExtractorServiceClient>;
export type JobsClient = PromiseClient<JobsServiceClient>;

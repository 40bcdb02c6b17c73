import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
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
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  // grpc-js waits 1 s after a failed connection, growing to two minutes, by default; a
  // backend that starts or comes back (and a gateway's revocation feed) should be used within seconds.
  "grpc.initial_reconnect_backoff_ms": 250,
  "grpc.max_reconnect_backoff_ms": 5_000,
  "grpc.max_receive_message_length": 64 * 1024 * 1024,
};

type ClientConstructor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: Partial<grpc.ClientOptions>) => C;

export function createClient<C>(Client: ClientConstructor<C>, address: string): C {
  return new Client(grpcTarget(address), grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
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

/** Calls a unary method as a promise; failures become WinnowErrors. */
export function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, options: CallOptions = {}): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(fromGrpcError(Object.assign(new Error("cancelled"), { code: grpc.status.CANCELLED, details: "cancelled", metadata: new grpc.Metadata() })));
      return;
    }
    const call = method(request, options.metadata ?? new grpc.Metadata(), options.deadline ? { deadline: options.deadline } : {}, (error, response) => {
      options.signal?.removeEventListener("abort", cancel);
      if (error) reject(fromGrpcError(error));
      else resolve(response);
    });
    const cancel = () => call.cancel();
    options.signal?.addEventListener("abort", cancel, { once: true });
  });
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

import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation, protoPath as healthProtoPath } from "grpc-health-check";
import type { Logger } from "pino";
import { type CallerRole, type CallerTokens, callerCheck } from "./caller-credentials.js";
import { toGrpcStatus } from "./grpc-errors.js";
import { meter, SECONDS_BUCKETS } from "./metrics.js";
import { WinnowError } from "./problems.js";
import { requestFieldsOf, withRequestFields } from "./request-fields.js";
import { MAX_REQUEST_TIMEOUT_MS } from "./service-config.js";

const rpcDuration = meter.createHistogram("winnow.rpc.server.duration", {
  unit: "s",
  description: "Duration of the RPCs this service answered, by method, gRPC status code and problem type",
  advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
});

/** Where the .proto contracts live (for server reflection). */
export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../proto");

export interface ServiceBinding {
  /** Fully qualified name, e.g. "winnow.auth.v1.AuthService"; also its health-check name. */
  name: string;
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
  /** The .proto file that declares it, relative to PROTO_ROOT. */
  protoFile: string;
  /** Who may call each method (by its key in definition); unlisted methods: every role the server accepts. */
  callers?: Readonly<Record<string, readonly CallerRole[]>>;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  services: ServiceBinding[];
  /** The tokens a call must carry one of (every method but health checks), by the role each proves. */
  callers: CallerTokens;
  logger: Logger;
  /** Connections are closed after this age so clients re-resolve DNS and spread over new replicas. */
  maxConnectionAgeMs?: number;
  /** How long calls on a connection past its age may still run before it is dropped; the longest deadline by default. */
  maxConnectionAgeGraceMs?: number;
}

export interface RunningGrpcServer {
  readonly port: number;
  /** Reports readiness through grpc.health.v1, for the server as a whole and every service. */
  setReady(ready: boolean): void;
  /** Stops taking calls, lets in-flight calls finish within graceMs, then cancels the rest. */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * Starts a gRPC server with health checking and reflection. Health starts as
 * NOT_SERVING; the service calls setReady(true) once its dependencies work.
 * Every call but a health check must carry a caller token (caller-credentials.ts).
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const everyRole = Object.keys(options.callers) as CallerRole[];
  const rolesByPath = new Map(
    options.services.flatMap((service) =>
      Object.entries(service.definition).map(([method, { path }]) => [path, service.callers?.[method] ?? everyRole]),
    ),
  );
  const server = new grpc.Server({
    "grpc.max_connection_age_ms": options.maxConnectionAgeMs ?? 5 * 60_000,
    "grpc.max_connection_age_grace_ms": options.maxConnectionAgeGraceMs ?? MAX_REQUEST_TIMEOUT_MS,
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
    interceptors: [
      callerCheck({
        tokens: options.callers,
        rolesFor: (path) => rolesByPath.get(path) ?? everyRole,
        onRefused: (refusal) =>
          options.logger.warn({ ...refusal, code: grpc.status[refusal.code] }, "internal call refused"),
      }),
    ],
  });
  const names = ["", ...options.services.map((s) => s.name)];
  const health = new HealthImplementation(Object.fromEntries(names.map((n) => [n, "NOT_SERVING" as const])));
  health.addToServer(server);

  const reflected = loadSync([...options.services.map((s) => s.protoFile), "health/v1/health.proto"], {
    includeDirs: [PROTO_ROOT, path.dirname(path.dirname(path.dirname(healthProtoPath)))],
  });
  new ReflectionService(reflected).addToServer(server);

  for (const service of options.services) server.addService(service.definition, service.implementation);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    );
  });
  options.logger.info({ port, services: options.services.map((s) => s.name) }, "gRPC server listening");

  return {
    port,
    setReady(ready) {
      for (const name of names) health.setStatus(name, ready ? "SERVING" : "NOT_SERVING");
    },
    shutdown(graceMs) {
      for (const name of names) health.setStatus(name, "NOT_SERVING");
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          options.logger.warn({ graceMs }, "in-flight calls still running at the shutdown deadline; cancelling them");
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

export interface CallContext {
  /** The caller's deadline; pass it on to every downstream call. */
  deadline: Date | undefined;
  /** Aborted when the caller cancels or the deadline passes. */
  signal: AbortSignal;
  metadata: grpc.Metadata;
}

/**
 * Adapts an async handler to grpc-js. A thrown WinnowError becomes a status
 * with ErrorInfo; anything else is logged and answered as INTERNAL without
 * leaking its message.
 */
export function unary<Req, Res>(
  logger: Logger,
  handler: (request: Req, context: CallContext) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const controller = new AbortController();
    const rawDeadline = call.getDeadline();
    const deadline =
      rawDeadline instanceof Date ? rawDeadline : Number.isFinite(rawDeadline) ? new Date(rawDeadline) : undefined;
    const timer = deadline
      ? setTimeout(
          () => controller.abort(new WinnowError("deadline-exceeded", "deadline exceeded")),
          Math.max(0, deadline.getTime() - Date.now()),
        )
      : undefined;
    // grpc-js also reports "cancelled" when the stream closes after an answer; only an open call is cancelled.
    let answered = false;
    call.on(
      "cancelled",
      () => answered || controller.abort(new WinnowError("deadline-exceeded", "call cancelled by the caller")),
    );
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const request = requestFieldsOf(call.metadata);
    // A call made for a customer's request gets a line of its own, like the gateway's access log.
    const answeredLine = (code: grpc.status) => {
      if (request.request_id) {
        logger.info(
          { method: call.getPath(), code: grpc.status[code], ms: Math.round(seconds() * 1000) },
          "call answered",
        );
      }
    };
    // Through a promise chain, so a handler that throws synchronously is answered like one that rejects; every
    // line logged on the way carries the request's fields.
    withRequestFields(request, () =>
      Promise.resolve()
        .then(() => handler(call.request, { deadline, signal: controller.signal, metadata: call.metadata }))
        .finally(() => (answered = true))
        .then(
          (response) => {
            rpcDuration.record(seconds(), { "rpc.method": call.getPath(), "rpc.grpc.status_code": grpc.status.OK });
            answeredLine(grpc.status.OK);
            callback(null, response);
          },
          (error: unknown) => {
            if (!(error instanceof WinnowError) || error.type === "internal") {
              logger.error({ err: error, method: call.getPath() }, "call failed");
            }
            const status = toGrpcStatus(error);
            const code = status.code ?? grpc.status.UNKNOWN;
            const problem = error instanceof WinnowError ? error.type : "internal";
            rpcDuration.record(seconds(), {
              "rpc.method": call.getPath(),
              "rpc.grpc.status_code": code,
              "winnow.problem.type": problem,
            });
            answeredLine(code);
            callback(status);
          },
        )
        .finally(() => clearTimeout(timer)),
    );
  };
}

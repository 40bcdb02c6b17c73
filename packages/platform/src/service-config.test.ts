import { expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { grpcServiceConfig } from "./service-config.js";

it("gives every gRPC service the same settings, with its own ports", () => {
  const shape = grpcServiceConfig({ grpcPort: 50051, metricsPort: 9465 });
  expect(Object.keys(shape)).toEqual([
    "GRPC_HOST",
    "GRPC_PORT",
    "METRICS_HOST",
    "METRICS_PORT",
    "SHUTDOWN_GRACE_MS",
    "GRPC_MAX_CONNECTION_AGE_MS",
    "GRPC_MAX_CONNECTION_AGE_GRACE_MS",
    "LOG_LEVEL",
  ]);
  expect(loadConfig(shape, {})).toEqual({
    GRPC_HOST: "127.0.0.1",
    GRPC_PORT: 50051,
    METRICS_HOST: "127.0.0.1",
    METRICS_PORT: 9465,
    SHUTDOWN_GRACE_MS: 10_000,
    GRPC_MAX_CONNECTION_AGE_MS: 300_000,
    GRPC_MAX_CONNECTION_AGE_GRACE_MS: 30_000,
    LOG_LEVEL: "info",
  });
});

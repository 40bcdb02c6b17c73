import { expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { grpcServiceConfig, MAX_REQUEST_TIMEOUT_MS } from "./service-config.js";

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
    GRPC_MAX_CONNECTION_AGE_GRACE_MS: 600_000,
    LOG_LEVEL: "info",
  });
});

it("refuses a connection-age grace shorter than the longest request deadline", () => {
  const shape = grpcServiceConfig({ grpcPort: 50051, metricsPort: 9465 });
  expect(() => loadConfig(shape, { GRPC_MAX_CONNECTION_AGE_GRACE_MS: "30000" })).toThrow(
    /GRPC_MAX_CONNECTION_AGE_GRACE_MS.*at least 600000/,
  );
  const grace = String(MAX_REQUEST_TIMEOUT_MS * 2);
  expect(loadConfig(shape, { GRPC_MAX_CONNECTION_AGE_GRACE_MS: grace }).GRPC_MAX_CONNECTION_AGE_GRACE_MS).toBe(
    MAX_REQUEST_TIMEOUT_MS * 2,
  );
});

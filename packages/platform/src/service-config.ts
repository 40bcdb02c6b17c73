import { env } from "./config.js";
import { metricsConfig } from "./metrics.js";

/** The longest deadline a request can carry down the services (the gateway's REQUEST_TIMEOUT_MS at most). */
export const MAX_REQUEST_TIMEOUT_MS = 600_000;

/**
 * What every gRPC service's configuration starts with: where it listens, where
 * its metrics are served, how long a shutdown waits for calls in flight, how
 * much it logs. Each service spreads it first into its own shape, with its ports:
 * `{ ...grpcServiceConfig({ grpcPort: 50051, metricsPort: 9465 }), ...its own }`.
 */
export const grpcServiceConfig = ({ grpcPort, metricsPort }: { grpcPort: number; metricsPort: number }) => ({
  GRPC_HOST: env.host("127.0.0.1"),
  GRPC_PORT: env.port(grpcPort),
  ...metricsConfig(metricsPort),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  /** Connections are closed at this age (clients reconnect, and spread over new replicas), after a grace for calls. */
  GRPC_MAX_CONNECTION_AGE_MS: env.positiveInt(5 * 60_000),
  /** Never shorter than the longest deadline: a call the connection's age overtakes still finishes. */
  GRPC_MAX_CONNECTION_AGE_GRACE_MS: env.wholeNumber(MAX_REQUEST_TIMEOUT_MS).default(MAX_REQUEST_TIMEOUT_MS),
  LOG_LEVEL: env.logLevel(),
});

import { env } from "@winnow/platform";

/** The gateway's environment variables; see the README's configuration table. */
export const configShape = {
  HOST: env.host("127.0.0.1"),
  PORT: env.port(8080),
  AUTH_ADDR: env.grpcTarget("127.0.0.1:50051"),
  RENDERER_ADDR: env.grpcTarget("127.0.0.1:50052"),
  EXTRACTOR_ADDR: env.grpcTarget("127.0.0.1:50053"),
  /** One deadline for a whole scrape, passed down every hop. */
  REQUEST_TIMEOUT_MS: env.positiveInt(60_000, 600_000),
  MAX_BODY_BYTES: env.positiveInt(1024 * 1024, 16 * 1024 * 1024),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  LOG_LEVEL: env.logLevel(),
};

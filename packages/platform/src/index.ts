export { ConfigError, env, loadConfig, loadConfigOrExit } from "./config.js";
export { grpcServiceConfig } from "./service-config.js";
export { createLogger, type Logger } from "./logger.js";
export { meter, metricsConfig, serveMetrics } from "./metrics.js";
export { deadlineSignal, type Deadline, type DeadlineBounds } from "./deadline.js";
export { flushTelemetry, logFatalErrors, onShutdownSignal } from "./lifecycle.js";
export {
  isProblemSlug,
  PROBLEM_TYPES,
  problemTypeUri,
  WinnowError,
  type ProblemSlug,
  type ProblemType,
  type Violation,
} from "./problems.js";
export { ERROR_INFO_TRAILER, fromGrpcError, toGrpcStatus } from "./grpc-errors.js";
export {
  PROTO_ROOT,
  startGrpcServer,
  unary,
  type CallContext,
  type GrpcServerOptions,
  type RunningGrpcServer,
  type ServiceBinding,
} from "./grpc-server.js";
export {
  checkHealth,
  createClient,
  grpcTarget,
  promiseClient,
  type AuthClient,
  type CallOptions,
  type ExtractorClient,
  type HealthStatus,
  type PromiseClient,
  type RendererClient,
} from "./grpc-client.js";
export {
  parseSchema,
  SCHEMA_LIMITS,
  SchemaError,
  type Field,
  type ObjectNode,
  type ScalarType,
  type SchemaNode,
} from "./schema-language.js";
export { checkTargetUrl, MAX_URL_LENGTH, parseTargetUrl } from "./target-url.js";

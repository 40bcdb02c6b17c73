export {
  type CallerRole,
  type CallerTokens,
  TOKEN_VARIABLES,
} from "./caller-credentials.js";
export { ConfigError, env, loadConfig, loadConfigOrExit, type RotatingSecret } from "./config.js";
export { type Deadline, type DeadlineBounds, deadlineSignal } from "./deadline.js";
export { lockDirectory } from "./directory-lock.js";
export { dnsLookup, type Lookup } from "./dns-lookup.js";
export {
  type EgressAllowlist,
  EgressGuard,
  isPublicAddress,
  memoizedRefusal,
  type PinnedTarget,
  parseEgressAllowlist,
  pinnedLookup,
} from "./egress-guard.js";
export {
  type AuthClient,
  type CallOptions,
  checkHealth,
  createClient,
  type ExtractorClient,
  grpcTarget,
  type HealthStatus,
  type JobsClient,
  type PromiseClient,
  promiseClient,
  type RendererClient,
} from "./grpc-client.js";
export { ERROR_INFO_TRAILER, fromGrpcError, toGrpcStatus } from "./grpc-errors.js";
export {
  type CallContext,
  type GrpcServerOptions,
  PROTO_ROOT,
  type RunningGrpcServer,
  type ServiceBinding,
  startGrpcServer,
  unary,
} from "./grpc-server.js";
export {
  flushTelemetry,
  LISTENING_MESSAGE,
  logFatalErrors,
  onShutdownSignal,
  reportListening,
  StartupError,
  supervisorGone,
} from "./lifecycle.js";
export { createLogger, type Logger } from "./logger.js";
export { meter, metricsConfig, serveMetrics } from "./metrics.js";
export { unsupportedNodeWarning, warnOnUnsupportedNode } from "./node-runtime.js";
export { PAGE_SIGNING_KEY_VARIABLE, pageSignatureHolds, signPage } from "./page-signature.js";
export { keepFilesPrivate } from "./private-files.js";
export {
  isProblemSlug,
  PROBLEM_TYPES,
  type ProblemSlug,
  type ProblemType,
  problemTypeUri,
  type Violation,
  WinnowError,
} from "./problems.js";
export { currentRequestFields, type RequestFields, requestMetadata, withRequestFields } from "./request-fields.js";
export {
  escapePointer,
  type Field,
  type ObjectNode,
  parseSchema,
  SCHEMA_LIMITS,
  type ScalarType,
  SchemaError,
  type SchemaNode,
  type ValueFormat,
} from "./schema-language.js";
export { readSecretFile, writeSecretFile } from "./secret-file.js";
export { grpcServiceConfig, MAX_REQUEST_TIMEOUT_MS } from "./service-config.js";
export { checkTargetUrl, MAX_URL_LENGTH, parseTargetUrl } from "./target-url.js";
export { untraced } from "./untraced.js";

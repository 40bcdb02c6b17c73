export {
  type BatchJob,
  type BatchResult,
  type BatchScrapeRequest,
  type WaitOptions,
  WinnowBatch,
  type WinnowBatchOptions,
} from "./batch.js";
export { type ScrapeOptions, type ScrapeRequest, Winnow, type WinnowOptions } from "./client.js";
export {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  ModelError,
  type Problem,
  RateLimitError,
  ServerError,
  TargetError,
  TimeoutError,
  WinnowError,
} from "./errors.js";
export {
  type AlternativeValue,
  describeStatus,
  type Evidence,
  type EvidenceSource,
  type FieldStatus,
  type ScrapeWarning,
  STATUS_MEANINGS,
} from "./evidence.js";
export type { Account, Engine, PagesRead, ScrapeResponse, ScrapeWithEvidence } from "./response.js";
export type { AnySchema, FieldType, JsonSchema, ScalarTypeName, Schema, ScrapeResult } from "./schema.js";
export { type VerifyWebhookOptions, verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "./webhooks.js";

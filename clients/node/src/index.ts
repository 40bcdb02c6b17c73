export { Winnow, type ScrapeOptions, type ScrapeRequest, type WinnowOptions } from "./client.js";
export {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  ModelError,
  RateLimitError,
  ServerError,
  TargetError,
  TimeoutError,
  WinnowError,
  type Problem,
} from "./errors.js";
export type { Evidence, EvidenceSource, ScrapeWithEvidence } from "./evidence.js";
export type { FieldType, ScalarTypeName, Schema, ScrapeResult } from "./schema.js";

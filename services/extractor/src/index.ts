/** What other packages (benchmarks, scripts, tests) may use of the extractor. */
export { configShape } from "./config.js";
export { extractBuiltin } from "./engines/builtin/index.js";
export { extractRecords } from "./engines/builtin/records/index.js";
export { urlsWanted, writeModelContent } from "./engines/model/content.js";
export { LlmEngine } from "./engines/model/llm.js";
export { countTokens, pageTokenBudget } from "./engines/model/tokens.js";
export { type FlowSettings, runExtraction } from "./flow/extract.js";
export {
  fieldKind,
  PROVEN_RELIABILITY,
  reliabilityOf,
  SURE_FROM,
  type ValueKind,
} from "./flow/prefill-calibration.js";
export { loadPage } from "./page/page.js";
export { normalizeText, numbersIn, withoutUrls } from "./page/text-match.js";
export { MAX_TEXT } from "./schema/evidence.js";
export { datesIn, isoDate } from "./schema/normalize.js";
export { SchemaCache } from "./schema/schema-cache.js";
export { isComplete, shape } from "./schema/shape.js";
export { TemplateLearner } from "./templates/learner.js";
export { SHARED_TENANT } from "./templates/signature.js";
export { openTemplateDatabase, SqlTemplateStore } from "./templates/sql-store.js";
export { MemoryTemplateStore } from "./templates/store.js";

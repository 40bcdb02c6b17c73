import { availableParallelism } from "node:os";
import { env, grpcServiceConfig } from "@winnow/platform";
import { z } from "zod";
import type { PromptSettings } from "./engines/model/extract.js";
import type { LlmSettings } from "./engines/model/llm.js";
import { pageTokenBudget } from "./engines/model/tokens.js";

/** The extractor's environment variables; see docs/configuration.md. */
export const configShape = {
  ...grpcServiceConfig({ grpcPort: 50053, metricsPort: 9467 }),
  /** What every caller (the gateway, other internal services) must present; the only token this process holds. */
  WINNOW_SERVICE_TOKEN: env.callerToken(),
  /** The renderer's page signing key: only pages it signed teach templates; without it, no page does. */
  WINNOW_PAGE_SIGNING_KEY: env.sharedSecret("the key the renderer signs pages with, the extractor's too").optional(),
  /** An OpenAI-compatible endpoint (vLLM, Ollama, Azure, ...); the OpenAI API when unset. */
  LLM_BASE_URL: env.url().optional(),
  LLM_API_KEY: z.string().optional(),
  /** Used when LLM_API_KEY is unset, as the OpenAI tools do. */
  OPENAI_API_KEY: z.string().optional(),
  LLM_MODEL: z.string().min(1).default("gpt-4o-mini"),
  LLM_MAX_RETRIES: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(0)
    .max(10)
    .default(2),
  LLM_TIMEOUT_MS: env.positiveInt(60_000),
  /** Page tokens per model call; by default half the model's context window, at most 24000. */
  LLM_PAGE_TOKENS: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(100, "must be at least 100")
    .optional(),
  LLM_MAX_PARALLEL: env.positiveInt(4, 32),
  EXTRACT_MAX_HTML_BYTES: env.positiveInt(10 * 1024 * 1024),
  /**
   * Extractions at once, each in a worker thread that is ended at its request's deadline (a worker waiting for the
   * model is held too; it costs memory then, not CPU).
   */
  EXTRACT_WORKERS: env.positiveInt(Math.max(4, 2 * availableParallelism()), 256),
  /**
   * Extraction workers one account (the request's tenant) holds at once; by default half of EXTRACT_WORKERS (at least
   * one), so that one account's slow pages leave workers to the others. Its further extractions wait their turn.
   * Internal callers (no tenant) may use every worker.
   */
  EXTRACT_WORKERS_PER_ACCOUNT: z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .optional(),
  /**
   * Extractions waiting for a worker; more are refused as overloaded (503, retryable). An account's own waiting
   * extractions are held to its share (EXTRACT_WORKERS_PER_ACCOUNT of EXTRACT_WORKERS) of this queue.
   */
  EXTRACT_MAX_QUEUE: env.nonNegativeInt(256),
  EXTRACT_MAX_PARTS: env.positiveInt(8, 100),
  EXTRACT_GROUNDING: z.enum(["off", "warn", "strict"], { message: "must be off, warn or strict" }).default("warn"),
  SCHEMA_CACHE_SIZE: env.positiveInt(256),
  /**
   * With an LLM, which of the builtin engine's answers stand without the model: "proven" (from sources
   * calibrated to >= 98% precision), "confident" (every answer it gives; fewer tokens, lower precision)
   * or "off" (the model reads every page for every field).
   */
  EXTRACT_HYBRID: z
    .enum(["proven", "confident", "off"], { message: "must be proven, confident or off" })
    .default("proven"),
  /**
   * Learn each site's templates: locators found from confident answers answer the fields of the template's next pages.
   */
  EXTRACT_TEMPLATES: env.boolean(true),
  /**
   * Every account reads and teaches one set of templates, as before templates were kept per account. Off by default: a
   * template one account's pages taught could answer another account's pages wrongly.
   */
  EXTRACT_TEMPLATES_SHARED: env.boolean(false),
  /** Templates kept per host (and account) and in all; the least recently used go first. */
  EXTRACT_TEMPLATES_PER_HOST: env.positiveInt(20, 10_000),
  EXTRACT_TEMPLATES_MAX: env.positiveInt(50_000, 10_000_000),
  /** Where the embedded template database lives (in its own folder, extractor-db) when DATABASE_URL is unset. */
  WINNOW_DATA_DIR: z.string().min(1).default(".data"),
  /** A Postgres server for learned templates, shared by every extractor replica (its own tables, beside auth's). */
  DATABASE_URL: env.postgresUrl().optional(),
};

export type ExtractorConfig = z.infer<z.ZodObject<typeof configShape>>;

/** The LLM settings, or undefined when none is configured (no endpoint and no key): the builtin engine answers then. */
export function llmSettings(config: ExtractorConfig): LlmSettings | undefined {
  const apiKey = config.LLM_API_KEY ?? config.OPENAI_API_KEY;
  if (!config.LLM_BASE_URL && !apiKey) return undefined;
  return {
    baseUrl: config.LLM_BASE_URL,
    apiKey,
    model: config.LLM_MODEL,
    maxRetries: config.LLM_MAX_RETRIES,
    timeoutMs: config.LLM_TIMEOUT_MS,
  };
}

/** Workers one account holds at once: EXTRACT_WORKERS_PER_ACCOUNT, at most EXTRACT_WORKERS; by default half of them. */
export function workersPerAccount(config: ExtractorConfig): number {
  return Math.min(
    config.EXTRACT_WORKERS,
    config.EXTRACT_WORKERS_PER_ACCOUNT ?? Math.max(1, Math.floor(config.EXTRACT_WORKERS / 2)),
  );
}

/** How pages are prepared for the model and its answers checked; used for include_model_input even without a model. */
export function promptSettings(config: ExtractorConfig): PromptSettings {
  return {
    pageTokens: pageTokenBudget(config.LLM_MODEL, config.LLM_PAGE_TOKENS),
    maxParts: config.EXTRACT_MAX_PARTS,
    maxParallel: config.LLM_MAX_PARALLEL,
    grounding: config.EXTRACT_GROUNDING,
  };
}

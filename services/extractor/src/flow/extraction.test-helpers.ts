/**
 * One extraction through the flow's real stages, for tests: the builtin engine alone, or with a scripted model (an
 * OpenAI-compatible server in the test's process, test/support/fake-llm.ts) that answers each part of the page.
 */
import { createLogger } from "@winnow/platform";
import type { ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type ChatRequestBody, type FakeAnswer, startFakeLlm } from "../../../../test/support/fake-llm.js";
import { LlmEngine } from "../engines/model/llm.js";
import { loadPage } from "../page/page.js";
import type { FieldRules } from "../schema/field-rules.js";
import { SchemaCache } from "../schema/schema-cache.js";
import type { EngineSettings } from "./engines.js";
import { runExtraction } from "./extract.js";

const logger = createLogger("test", "silent");
const schemas = new SchemaCache();

export interface Run {
  task?: string;
  /** The model's answer to each part of the page; none: the builtin engine alone. */
  model?: (body: ChatRequestBody) => FakeAnswer;
  /** EXTRACT_HYBRID; "off" unless given. */
  hybrid?: EngineSettings["hybrid"];
  pageTokens?: number;
  maxParts?: number;
  pageWarnings?: ExtractResponse["warnings"];
  evidence?: boolean;
  /** A JSON Schema's enum, const and format by field pointer (ExtractRequest.field_rules). */
  rules?: FieldRules;
}

export async function extract(html: string, schema: object, run: Run = {}) {
  const schemaJson = JSON.stringify(schema);
  const fake = run.model ? await startFakeLlm(run.model) : undefined;
  const llm = fake
    ? new LlmEngine(
        { baseUrl: fake.baseUrl, apiKey: undefined, model: "scripted", maxRetries: 0, timeoutMs: 10_000 },
        logger,
      )
    : undefined;
  try {
    const { response } = await runExtraction(
      {
        schemaJson,
        fieldHints: {},
        fieldRules: run.rules ?? {},
        schema: schemas.get(schemaJson, {}, run.rules),
        page: loadPage(html, "https://shop.example/p/1"),
        taskDescription: run.task ?? "",
        includeModelInput: false,
        evidence: run.evidence ?? true,
        llm,
        bounds: { signal: new AbortController().signal, deadline: new Date(Date.now() + 10_000) },
        templateScope: undefined,
        pageWarnings: run.pageWarnings ?? [],
        wantNextPage: false,
        knownFields: [],
      },
      {
        schemas,
        prompts: {
          pageTokens: run.pageTokens ?? 4_000,
          maxParts: run.maxParts ?? 8,
          maxParallel: 2,
          grounding: "warn",
        },
        hybrid: run.hybrid ?? "off",
        templates: undefined,
        logger,
      },
    );
    return {
      response,
      data: JSON.parse(response.dataJson) as Record<string, unknown>,
      status: Object.fromEntries(response.fieldStatus.map((s) => [s.pointer, s.status])),
      codes: response.warnings.map((w) => `${w.code} ${w.path}`.trim()),
      evidence: new Map(response.evidence.map((e) => [e.pointer, e])),
    };
  } finally {
    await fake?.close();
  }
}

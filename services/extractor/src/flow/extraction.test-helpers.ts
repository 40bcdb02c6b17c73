/**
 * One extraction through the flow's real stages, for tests: the builtin engine alone, or with a scripted model (an
 * OpenAI-compatible server in the test's process, test/support/fake-llm.ts) that answers each part of the page.
 */
import { createLogger } from "@winnow/platform";
import type { ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import {
  type ChatRequestBody,
  type FakeAnswer,
  type FakeLlm,
  startFakeLlm,
} from "../../../../test/support/fake-llm.js";
import { TEST_TIMEOUT_MS } from "../../../../test/support/test-timeout.js";
import { LlmEngine } from "../engines/model/llm.js";
import { loadPage } from "../page/page.js";
import type { FieldRules } from "../schema/field-rules.js";
import { SchemaCache } from "../schema/schema-cache.js";
import { TemplateLearner } from "../templates/learner.js";
import { MemoryTemplateStore } from "../templates/store.js";
import type { EngineSettings } from "./engines.js";
import { type FlowSettings, runExtraction } from "./extract.js";
import type { TemplateScope } from "./template-scope.js";

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

/**
 * The flow with a template learner (hybrid "proven") and, given a scripted `model`, the model engine: each page
 * through it with its learning settled, as the extractor serves one account's pages in turn.
 */
export function learningFlow(model?: FakeLlm) {
  const store = new MemoryTemplateStore({ templatesPerHost: 5, templates: 50 });
  const settings: FlowSettings = {
    schemas: new SchemaCache(),
    prompts: { pageTokens: 4_000, maxParts: 4, maxParallel: 2, grounding: "warn" },
    hybrid: "proven",
    templates: new TemplateLearner(store, logger),
    logger,
  };
  const llm =
    model &&
    new LlmEngine(
      { baseUrl: model.baseUrl, apiKey: undefined, model: "scripted", maxRetries: 0, timeoutMs: TEST_TIMEOUT_MS },
      logger,
    );
  const extract = async (
    html: string,
    url: string,
    { scope, schema, knownFields = [] }: { scope: TemplateScope | undefined; schema: object; knownFields?: string[] },
  ) => {
    const schemaJson = JSON.stringify(schema);
    const extraction = await runExtraction(
      {
        schemaJson,
        fieldHints: {},
        fieldRules: {},
        schema: settings.schemas.get(schemaJson),
        page: loadPage(html, url),
        taskDescription: "",
        includeModelInput: false,
        evidence: true,
        llm,
        bounds: {
          signal: new AbortController().signal,
          deadline: llm ? new Date(Date.now() + TEST_TIMEOUT_MS) : undefined,
        },
        templateScope: scope,
        pageWarnings: [],
        wantNextPage: false,
        knownFields,
      },
      settings,
    );
    await extraction.learning;
    return { ...extraction, data: JSON.parse(extraction.response.dataJson) as Record<string, unknown> };
  };
  return { store, extract };
}

/** Reads pages of one layout in turn, as a site's pages come, for one account: each answer and its model calls. */
export async function readLayout(
  model: FakeLlm,
  schema: object,
  pages: { html: string; url: string }[],
  knownFields: string[] = [],
): Promise<{ modelCalls: number; response: ExtractResponse }[]> {
  const { extract } = learningFlow(model);
  const answers = [];
  for (const { html, url } of pages) {
    const before = model.requests.length;
    const { response } = await extract(html, url, { scope: { tenant: "acct-a", learn: true }, schema, knownFields });
    answers.push({ modelCalls: model.requests.length - before, response });
  }
  return answers;
}

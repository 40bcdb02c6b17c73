import { unary, WinnowError, type CallContext, type Logger } from "@winnow/platform";
import {
  Engine,
  type ExtractRequest,
  type ExtractResponse,
  type ExtractorServiceServer,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "./engines/builtin.js";
import { countExtraction } from "./extract-metrics.js";
import type { LlmEngine } from "./engines/llm.js";
import { merge, prefill, prefillWarning } from "./hybrid.js";
import { extractWithModel, modelInputsFor, type ModelSettings } from "./model-extraction.js";
import { absoluteUrl, loadPage } from "./page.js";
import type { SchemaCache } from "./schema-cache.js";
import { shape } from "./shape.js";

export interface ExtractorDependencies {
  logger: Logger;
  schemas: SchemaCache;
  /** Undefined when no LLM is configured; the builtin engine then answers. */
  llm: LlmEngine | undefined;
  maxHtmlBytes: number;
  /** Also used without a model, for include_model_input. */
  model: ModelSettings;
  /** With the LLM engine, let the builtin engine answer the fields it is confident about first (hybrid.ts). */
  hybrid: boolean;
}

export function createExtractorService(deps: ExtractorDependencies): ExtractorServiceServer {
  return { extract: unary(deps.logger, (request: ExtractRequest, ctx) => extract(deps, request, ctx)) };
}

async function extract(deps: ExtractorDependencies, request: ExtractRequest, ctx: CallContext): Promise<ExtractResponse> {
  const started = Date.now();
  const schema = deps.schemas.get(request.schemaJson);
  // Optional: without it, relative links are left out of the model's input.
  if (request.url !== "" && absoluteUrl(request.url, undefined) === undefined) {
    throw new WinnowError("invalid-request", "url must be an absolute http(s) URL", {
      violations: [{ path: "/url", description: "must be an absolute http(s) URL" }],
    });
  }
  const htmlBytes = Buffer.byteLength(request.html, "utf8");
  if (htmlBytes > deps.maxHtmlBytes) {
    throw new WinnowError("page-too-large", `the page is ${htmlBytes} bytes; at most ${deps.maxHtmlBytes} are extracted`);
  }
  const llm = chooseLlm(request.options?.engine ?? Engine.ENGINE_UNSPECIFIED, deps.llm);
  const page = loadPage(request.html, request.url);

  const includeModelInput = request.options?.includeModelInput ?? false;
  let response: ExtractResponse;
  let fieldsPrefilled: number | undefined;
  if (!llm) {
    const shaped = shape(schema.tree, extractBuiltin(schema.tree, page));
    response = {
      dataJson: JSON.stringify(shaped.data),
      engine: Engine.ENGINE_BUILTIN,
      model: "",
      warnings: shaped.warnings,
      // After the builtin engine: rendering strips boilerplate from the document.
      modelInputs: includeModelInput ? modelInputsFor(page, schema, request.taskDescription, deps.model) : [],
    };
  } else {
    // Hybrid pre-fill, before the content is rendered (the builtin engine reads the whole document). Not with a
    // task description: it may want fields derived otherwise than as the page states them.
    const pre = deps.hybrid && !request.taskDescription.trim() ? prefill(schema.tree, page) : undefined;
    const asked = pre && pre.filled.length > 0 ? deps.schemas.narrowed(request.schemaJson, pre.remaining) : schema;
    if (pre && pre.remaining.length === 0) {
      response = { dataJson: JSON.stringify(pre.data), engine: Engine.ENGINE_BUILTIN, model: "", warnings: [prefillWarning(pre)], modelInputs: [] };
    } else {
      const answer = await extractWithModel(llm, deps.model, asked, page, request.taskDescription, includeModelInput, ctx);
      const prefilled = pre && asked !== schema ? pre : undefined;
      response = prefilled
        ? {
            ...answer,
            dataJson: JSON.stringify(merge(schema.tree, prefilled, JSON.parse(answer.dataJson) as Record<string, unknown>)),
            warnings: [prefillWarning(prefilled), ...answer.warnings],
          }
        : answer;
    }
    fieldsPrefilled = pre?.filled.length;
  }
  deps.logger.info(
    { engine: Engine[response.engine], model: response.model || undefined, tokens: response.usage?.totalTokens, prefilled: fieldsPrefilled, warnings: response.warnings.length, ms: Date.now() - started },
    "extracted",
  );
  countExtraction(response);
  return response;
}

/** The LLM engine to use, or undefined for the builtin one. */
function chooseLlm(requested: Engine, llm: LlmEngine | undefined): LlmEngine | undefined {
  switch (requested) {
    case Engine.ENGINE_BUILTIN:
      return undefined;
    case Engine.ENGINE_LLM:
      if (!llm) throw new WinnowError("invalid-request", "engine LLM was requested, but no LLM is configured");
      return llm;
    case Engine.ENGINE_UNSPECIFIED:
      return llm;
    default:
      throw new WinnowError("invalid-request", `unknown engine ${String(requested)}`);
  }
}

import {
  type CallContext,
  type Logger,
  parseTargetUrl,
  type ServiceBinding,
  unary,
  WinnowError,
} from "@winnow/platform";
import {
  Engine,
  type ExtractorServiceServer,
  ExtractorServiceService,
  type ExtractRequest,
  type ExtractResponse,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { LlmEngine } from "./engines/model/llm.js";
import { countExtraction } from "./extract-metrics.js";
import { type FlowSettings, runExtraction } from "./flow/extract.js";
import { templateScope } from "./flow/template-scope.js";
import { loadPage } from "./page/page.js";

export interface ExtractorDependencies extends FlowSettings {
  logger: Logger;
  /** Undefined when no LLM is configured; the builtin engine then answers. */
  llm: LlmEngine | undefined;
  maxHtmlBytes: number;
  /** Every account reads and teaches one set of templates (EXTRACT_TEMPLATES_SHARED); else each its own. */
  sharedTemplates: boolean;
}

/** The service as a gRPC server registers it. */
export function extractorServiceBinding(deps: ExtractorDependencies): ServiceBinding {
  return {
    name: "winnow.extractor.v1.ExtractorService",
    definition: ExtractorServiceService,
    implementation: createExtractorService(deps),
    protoFile: "winnow/extractor/v1/extractor.proto",
  };
}

/**
 * The gRPC adapter: checks the request, picks the engine, runs the extraction (flow/extract.ts), logs and counts it.
 */
function createExtractorService(deps: ExtractorDependencies): ExtractorServiceServer {
  return { extract: unary(deps.logger, (request: ExtractRequest, ctx) => extract(deps, request, ctx)) };
}

async function extract(
  deps: ExtractorDependencies,
  request: ExtractRequest,
  ctx: CallContext,
): Promise<ExtractResponse> {
  const started = Date.now();
  const schema = deps.schemas.get(request.schemaJson);
  // Optional: without it, relative links are left out of the model's input.
  if (request.url !== "") parseTargetUrl(request.url);
  const htmlBytes = Buffer.byteLength(request.html, "utf8");
  if (htmlBytes > deps.maxHtmlBytes) {
    throw new WinnowError(
      "page-too-large",
      `the page is ${htmlBytes} bytes; at most ${deps.maxHtmlBytes} are extracted`,
    );
  }
  const llm = chooseLlm(request.options?.engine ?? Engine.ENGINE_UNSPECIFIED, deps.llm);
  const scope = templateScope(request, deps.sharedTemplates);
  // Learning goes on after the answer; it logs its own failures.
  const { response, prefilled, templated } = await runExtraction(
    {
      schemaJson: request.schemaJson,
      schema,
      page: loadPage(request.html, request.url),
      taskDescription: request.taskDescription,
      includeModelInput: request.options?.includeModelInput ?? false,
      evidence: request.options?.evidence ?? false,
      llm,
      bounds: ctx,
      templateScope: scope,
    },
    deps,
  );
  deps.logger.info(
    {
      engine: Engine[response.engine],
      model: response.model || undefined,
      tokens: response.usage?.totalTokens,
      prefilled,
      templated: templated.size,
      warnings: response.warnings.length,
      ms: Date.now() - started,
    },
    "extracted",
  );
  countExtraction(response, templated.size);
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
    case Engine.ENGINE_TEMPLATE:
      throw new WinnowError(
        "invalid-request",
        "engine TEMPLATE names an answer's source; request BUILTIN, LLM or UNSPECIFIED",
      );
    default:
      throw new WinnowError("invalid-request", `unknown engine ${String(requested)}`);
  }
}

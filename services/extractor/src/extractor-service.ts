import {
  type CallContext,
  type Logger,
  parseTargetUrl,
  type ServiceBinding,
  unary,
  WinnowError,
} from "@winnow/platform";
import {
  type DescribeEnginesResponse,
  Engine,
  type ExtractorServiceServer,
  ExtractorServiceService,
  type ExtractRequest,
  type ExtractResponse,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { LlmEngine } from "./engines/model/llm.js";
import { countExtraction } from "./extract-metrics.js";
import type { Answered, ExtractionInput } from "./flow/job.js";
import { type ScopeSettings, templateScope } from "./flow/template-scope.js";
import type { SchemaCache } from "./schema/schema-cache.js";

export interface ExtractorDependencies {
  logger: Logger;
  /** Compiles and checks the schema before a worker is asked. */
  schemas: SchemaCache;
  /** Undefined when no LLM is configured; the builtin engine then answers. */
  llm: LlmEngine | undefined;
  maxHtmlBytes: number;
  /** Whose templates a request reads, and which pages teach them (template-scope.ts). */
  templateScope: ScopeSettings;
  /** Where extractions run: flow/extract.ts in worker threads (workers/extraction-pool.ts). */
  extractions: Extractions;
  /** The model and engine version, as DescribeEngines states them (engine-identity.ts). */
  identity: DescribeEnginesResponse;
}

/** What the service asks of the worker pool: one extraction, in its account's turn, within the call's deadline. */
interface Extractions {
  run(input: ExtractionInput, account: string, ctx: CallContext): Promise<Answered>;
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
  return {
    extract: unary(deps.logger, (request: ExtractRequest, ctx) => extract(deps, request, ctx)),
    describeEngines: unary(deps.logger, async () => deps.identity),
  };
}

async function extract(
  deps: ExtractorDependencies,
  request: ExtractRequest,
  ctx: CallContext,
): Promise<ExtractResponse> {
  const started = Date.now();
  deps.schemas.get(request.schemaJson, request.fieldHints, request.fieldRules);
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
  const scope = templateScope(request, deps.templateScope);
  // The worker answers, then learns from the page; it logs its own failures.
  const { response, prefilled, templated } = await deps.extractions.run(
    {
      html: request.html,
      url: request.url,
      schemaJson: request.schemaJson,
      fieldHints: request.fieldHints,
      fieldRules: request.fieldRules,
      taskDescription: request.taskDescription,
      includeModelInput: request.options?.includeModelInput ?? false,
      evidence: request.options?.evidence ?? false,
      model: llm !== undefined,
      deadline: ctx.deadline?.getTime(),
      templateScope: scope,
      pageWarnings: request.pageWarnings,
      wantNextPage: request.wantNextPage,
      knownFields: request.knownFields,
    },
    // Workers are shared fairly by account, the tenant the gateway names (template-scope.ts checked it).
    request.tenant,
    ctx,
  );
  deps.logger.info(
    {
      engine: Engine[response.engine],
      model: response.model || undefined,
      tokens: response.usage?.totalTokens,
      prefilled,
      templated,
      warnings: response.warnings.length,
      ms: Date.now() - started,
    },
    "extracted",
  );
  countExtraction(response, templated);
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

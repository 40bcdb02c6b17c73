/**
 * The model path of an extraction: page content split into parts under the
 * token budget, one model call per part (in parallel, at most maxParallel at
 * a time), each answer shaped, the parts merged in code, then grounded.
 */
import { Engine, type ExtractResponse, type ModelInput, type TokenUsage, type Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import pLimit from "p-limit";
import { splitContent } from "./content-parts.js";
import type { CallBounds, LlmAnswer, LlmEngine } from "./engines/llm.js";
import { buildModelCall, toModelInput, type PromptRequest } from "./engines/prompt.js";
import { evidenceMessages, presentIn } from "./evidence.js";
import { groundAnswer, type GroundingMode } from "./grounding.js";
import { mergeAnswers } from "./merge-parts.js";
import type { Page } from "./page.js";
import { renderPageContent, urlsWanted } from "./page-content.js";
import type { CompiledSchema } from "./schema-cache.js";
import { shape } from "./shape.js";

export interface PromptSettings {
  /** Page tokens per model call; longer pages are split into parts. */
  pageTokens: number;
  /** Parts read at most; the rest of a huge page is left out with a warning. */
  maxParts: number;
  /** Model calls in flight at once for one page. */
  maxParallel: number;
  grounding: GroundingMode;
}

interface Prompts {
  requests: PromptRequest[];
  /** The text the model reads, all parts together: what grounding checks against. */
  text: string;
  warnings: Warning[];
}

/** Renders the page (mutating its document) into one prompt per part. */
function preparePrompts(page: Page, schema: CompiledSchema, taskDescription: string, settings: PromptSettings): Prompts {
  const content = renderPageContent(page, urlsWanted(schema.tree));
  const { parts, warnings } = splitContent(content, settings.pageTokens, settings.maxParts);
  return {
    requests: parts.map((part) => ({ responseFormat: schema.responseFormat, content: part, taskDescription })),
    text: parts.join("\n\n"),
    warnings,
  };
}

/** What the model would be sent for this page, for include_model_input when no model is called. */
export function modelInputsFor(page: Page, schema: CompiledSchema, taskDescription: string, settings: PromptSettings): ModelInput[] {
  return preparePrompts(page, schema, taskDescription, settings).requests.map((request) => toModelInput(buildModelCall(request, "json_schema")));
}

export async function extractWithModel(
  llm: LlmEngine,
  settings: PromptSettings,
  schema: CompiledSchema,
  page: Page,
  taskDescription: string,
  includeModelInput: boolean,
  bounds: CallBounds,
): Promise<ExtractResponse> {
  const prompts = preparePrompts(page, schema, taskDescription, settings);
  const limit = pLimit(settings.maxParallel);
  const answers = await Promise.all(prompts.requests.map((request) => limit(() => llm.extract(request, bounds)))).catch((error: unknown) => {
    // One failed part fails the extraction: the parts still queued are not sent.
    limit.clearQueue();
    throw error;
  });
  const shaped = answers.map((answer) => shape(schema.tree, answer.value));
  const merged = mergeAnswers(schema.tree, shaped.map((s) => s.data as Record<string, unknown>));
  const grounded = groundAnswer(schema.tree, merged.data, prompts.text, taskDescription, settings.grounding);
  return {
    dataJson: JSON.stringify(grounded.data),
    engine: Engine.ENGINE_LLM,
    model: answers[0]!.model,
    usage: totalUsage(answers),
    warnings: [
      ...prompts.warnings,
      ...answers.flatMap((answer) => answer.warnings),
      ...shaped.flatMap((s) => s.warnings),
      ...merged.warnings,
      ...grounded.warnings,
    ],
    modelInputs: includeModelInput ? answers.map((answer) => answer.modelInput) : [],
    evidence: evidenceMessages(presentIn(grounded.evidence, grounded.data)),
  };
}

function totalUsage(answers: LlmAnswer[]): TokenUsage {
  return answers.reduce(
    (sum, { usage }) => ({
      promptTokens: sum.promptTokens + usage.promptTokens,
      completionTokens: sum.completionTokens + usage.completionTokens,
      totalTokens: sum.totalTokens + usage.totalTokens,
    }),
    { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  );
}


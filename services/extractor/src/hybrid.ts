/**
 * An extraction's flow: the builtin engine alone, or hybrid extraction with
 * a model. In hybrid extraction the builtin engine answers the fields it is
 * confident about (it leaves the others null), the model is asked only for
 * the rest, and the two answers are merged. A field the builtin engine
 * answers is left out of the model's schema, so it costs no output tokens; a
 * page it answers whole costs no model call at all.
 */
import type { ObjectNode } from "@winnow/platform";
import { Engine, type ExtractResponse, type Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "./engines/builtin/index.js";
import type { CallBounds, LlmEngine } from "./engines/llm.js";
import { extractWithModel, modelInputsFor, type PromptSettings } from "./model-extraction.js";
import type { Page } from "./page.js";
import type { CompiledSchema, SchemaCache } from "./schema-cache.js";
import { shape } from "./shape.js";

export interface HybridSettings {
  schemas: SchemaCache;
  /** How a page is put to the model; also used without one, for include_model_input. */
  prompts: PromptSettings;
  /** With a model, let the builtin engine answer the fields it is confident about first. */
  hybrid: boolean;
}

export interface ExtractionJob {
  /** The schema as the caller sent it (narrowed schemas are cached by it) and compiled. */
  schemaJson: string;
  schema: CompiledSchema;
  page: Page;
  taskDescription: string;
  includeModelInput: boolean;
  /** The model, or undefined for the builtin engine alone. */
  llm: LlmEngine | undefined;
  bounds: CallBounds;
  /** When the model is called anyway, ask it every field: a template's first pages learn the model's reading of each (templates/flow.ts). */
  askAll?: boolean;
}

export interface Extraction {
  response: ExtractResponse;
  /** How many fields the builtin engine answered before the model (hybrid extraction only). */
  prefilled: number | undefined;
  /** Which fields those were. */
  prefilledFields: string[];
}

/** Extracts with the builtin engine alone, or with the model after the builtin engine's pre-fill. */
export async function extractHybrid(job: ExtractionJob, settings: HybridSettings): Promise<Extraction> {
  const { schema, page, llm } = job;
  if (!llm) {
    const shaped = shape(schema.tree, extractBuiltin(schema.tree, page));
    const response = {
      dataJson: JSON.stringify(shaped.data),
      engine: Engine.ENGINE_BUILTIN,
      model: "",
      warnings: shaped.warnings,
      // After the builtin engine: rendering strips boilerplate from the document.
      modelInputs: job.includeModelInput ? modelInputsFor(page, schema, job.taskDescription, settings.prompts) : [],
    };
    return { response, prefilled: undefined, prefilledFields: [] };
  }
  // Before the content is rendered (the builtin engine reads the whole document). Not with a task
  // description: it may want fields derived otherwise than as the page states them.
  const pre = settings.hybrid && !job.taskDescription.trim() ? prefill(schema.tree, page) : undefined;
  if (pre && pre.remaining.length === 0) {
    const response = { dataJson: JSON.stringify(pre.data), engine: Engine.ENGINE_BUILTIN, model: "", warnings: [prefillWarning(pre)], modelInputs: [] };
    return { response, prefilled: pre.filled.length, prefilledFields: pre.filled };
  }
  const prefilled = pre && pre.filled.length > 0 && !job.askAll ? pre : undefined;
  const asked = prefilled ? settings.schemas.narrowed(job.schemaJson, prefilled.remaining) : schema;
  const answer = await extractWithModel(llm, settings.prompts, asked, page, job.taskDescription, job.includeModelInput, job.bounds);
  const response = prefilled
    ? {
        ...answer,
        dataJson: JSON.stringify(merge(schema.tree, prefilled, JSON.parse(answer.dataJson) as Record<string, unknown>)),
        warnings: [prefillWarning(prefilled), ...answer.warnings],
      }
    : answer;
  return { response, prefilled: pre?.filled.length, prefilledFields: prefilled?.filled ?? [] };
}

interface Prefill {
  /** The builtin engine's answer, in the schema's shape. */
  data: Record<string, unknown>;
  /** Top-level fields it answered completely, in schema order. */
  filled: string[];
  /** Top-level fields left for the model, in schema order (empty when none). */
  remaining: string[];
}

/** Runs the builtin engine; call it before anything removes parts of the page's document. */
function prefill(tree: ObjectNode, page: Page): Prefill {
  const { data } = shape(tree, extractBuiltin(tree, page));
  const filled = tree.fields.filter((field) => isComplete(data[field.name])).map((field) => field.name);
  return { data, filled, remaining: tree.fields.map((field) => field.name).filter((name) => !filled.includes(name)) };
}

/** The model's answer for the remaining fields merged with the pre-filled ones, in the schema's field order. */
function merge(tree: ObjectNode, pre: Prefill, model: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(tree.fields.map((field) => [field.name, pre.filled.includes(field.name) ? pre.data[field.name] : (model[field.name] ?? null)]));
}

/** A warning that says which fields the builtin engine answered, so callers see what the model did not. */
function prefillWarning(pre: Prefill): Warning {
  const total = pre.filled.length + pre.remaining.length;
  const rest = pre.remaining.length === 0 ? "no model call was needed" : "the model was asked for the rest";
  return { code: "prefilled", message: `${pre.filled.length} of ${total} fields answered by the builtin engine (${pre.filled.join(", ")}); ${rest}`, path: "" };
}

/** A value with nothing left to find: not null, not an empty list, and no null inside an object. */
export function isComplete(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).every(isComplete);
  return true;
}

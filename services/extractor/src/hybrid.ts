/**
 * An extraction's flow: the builtin engine alone, or hybrid extraction with
 * a model. In hybrid extraction the builtin engine answers first; the fields
 * it answered from sources proven on the corpus (prefill-calibration.ts)
 * stand, and a page it answers whole that way costs no model call at all.
 * Otherwise the model reads the page for the whole schema, with the builtin
 * engine's answers beside it as suggestions to confirm or correct; its
 * answer is final for every field not proven.
 */
import { isDeepStrictEqual } from "node:util";
import type { ObjectNode } from "@winnow/platform";
import { Engine, type ExtractResponse, type Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "./engines/builtin/index.js";
import { evidenceMessages, EvidenceTrail, isUnder, presentIn, underFields, type EvidenceMap } from "./evidence.js";
import { nameHints } from "./field-names.js";
import { isProven, valueKind } from "./prefill-calibration.js";
import type { CallBounds, LlmEngine } from "./engines/llm.js";
import type { Suggestion } from "./engines/prompt.js";
import { extractWithModel, modelInputsFor, type PromptSettings } from "./model-extraction.js";
import type { Page } from "./page.js";
import type { CompiledSchema, SchemaCache } from "./schema-cache.js";
import { shape } from "./shape.js";

/** See EXTRACT_HYBRID in config.ts. */
export type HybridMode = "proven" | "confident" | "off";

export interface HybridSettings {
  schemas: SchemaCache;
  /** How a page is put to the model; also used without one, for include_model_input. */
  prompts: PromptSettings;
  /** With a model, which of the builtin engine's answers stand without it (EXTRACT_HYBRID). */
  hybrid: HybridMode;
}

export interface ExtractionJob {
  /** The schema as the caller sent it (narrowed schemas are cached by it) and compiled. */
  schemaJson: string;
  schema: CompiledSchema;
  page: Page;
  taskDescription: string;
  includeModelInput: boolean;
  /** Return each value's evidence (ExtractResponse.evidence). */
  evidence: boolean;
  /** The model, or undefined for the builtin engine alone. */
  llm: LlmEngine | undefined;
  bounds: CallBounds;
}

export interface Extraction {
  response: ExtractResponse;
  /** How many fields the builtin engine answered before the model (hybrid extraction only). */
  prefilled: number | undefined;
  /** Which fields those were: their answers stood without the model. */
  prefilledFields: string[];
}

/** Extracts with the builtin engine alone, or with the model after the builtin engine's pre-fill. */
export async function extractHybrid(job: ExtractionJob, settings: HybridSettings): Promise<Extraction> {
  const { schema, page, llm } = job;
  const trail = job.evidence ? new EvidenceTrail() : undefined;
  if (!llm) {
    const shaped = shape(schema.tree, extractBuiltin(schema.tree, page, trail));
    const response = {
      dataJson: JSON.stringify(shaped.data),
      engine: Engine.ENGINE_BUILTIN,
      model: "",
      warnings: shaped.warnings,
      modelInputs: job.includeModelInput ? modelInputsFor({ schema, page, taskDescription: job.taskDescription, suggestions: [] }, settings.prompts) : [],
      evidence: trail ? evidenceMessages(presentIn(trail.evidence, shaped.data)) : [],
    };
    return { response, prefilled: undefined, prefilledFields: [] };
  }
  // Not with a task description: it may want fields derived otherwise than as the page states them.
  const pre = settings.hybrid !== "off" && !job.taskDescription.trim() ? prefill(schema.tree, page, settings.hybrid) : undefined;
  if (pre && pre.remaining.length === 0) {
    const evidence = job.evidence ? evidenceMessages(underFields(pre.evidence, pre.trusted)) : [];
    const response = { dataJson: JSON.stringify(pre.data), engine: Engine.ENGINE_BUILTIN, model: "", warnings: [prefillWarning(pre)], modelInputs: [], evidence };
    return { response, prefilled: pre.trusted.length, prefilledFields: pre.trusted };
  }
  // The model is asked the whole schema even where the builtin engine's proven values will stand: the
  // fields together say what the page is read for (which of its products, which of its articles).
  const question = { schema, page, taskDescription: job.taskDescription, suggestions: pre ? suggestionsOf(pre) : [] };
  const answer = await extractWithModel(llm, settings.prompts, question, job.includeModelInput, job.bounds);
  if (!pre) return { response: { ...answer, evidence: job.evidence ? answer.evidence : [] }, prefilled: undefined, prefilledFields: [] };
  const model = JSON.parse(answer.dataJson) as Record<string, unknown>;
  const data = Object.fromEntries(schema.tree.fields.map(({ name }) => [name, pre.trusted.includes(name) ? pre.data[name] : (model[name] ?? null)]));
  // The model was asked the trusted fields too, but its answers there do not stand; where it confirmed a suggestion, the
  // builtin engine's evidence says where on the page the value is (its element, not just a line of text).
  const confirmed = pre.remaining.filter((name) => isComplete(model[name]) && isDeepStrictEqual(model[name], pre.data[name]));
  const fromBuiltin = [...pre.trusted, ...confirmed];
  const evidence = job.evidence ? [...evidenceMessages(underFields(pre.evidence, fromBuiltin)), ...answer.evidence.filter((e) => !isUnder(e.pointer, fromBuiltin))] : [];
  const warnings = pre.trusted.length > 0 ? [prefillWarning(pre), ...answer.warnings] : answer.warnings;
  return { response: { ...answer, dataJson: JSON.stringify(data), warnings, evidence }, prefilled: pre.trusted.length, prefilledFields: pre.trusted };
}

interface Prefill {
  /** The builtin engine's answer, in the schema's shape. */
  data: Record<string, unknown>;
  /** Where its values were read, by JSON pointer. */
  evidence: EvidenceMap;
  /** Top-level fields whose answers stand without the model (complete, and in "proven" mode from a source proven on the corpus: prefill-calibration.ts), in schema order. */
  trusted: string[];
  /** Top-level fields asked of the model, in schema order (empty when none). */
  remaining: string[];
}

/** Runs the builtin engine and sorts its answers into those that stand and those the model checks. */
function prefill(tree: ObjectNode, page: Page, mode: Exclude<HybridMode, "off">): Prefill {
  const trail = new EvidenceTrail();
  const { data } = shape(tree, extractBuiltin(tree, page, trail));
  const evidence = presentIn(trail.evidence, data);
  const trusted = tree.fields
    .filter(({ name, node }) => isComplete(data[name]) && (mode === "confident" || isProven(evidence, name, valueKind(node, nameHints(name)))))
    .map(({ name }) => name);
  return { data, evidence, trusted, remaining: tree.fields.map(({ name }) => name).filter((name) => !trusted.includes(name)) };
}

/** The builtin engine's answers that do not stand on their own, with where it read them: the model confirms or corrects them. */
function suggestionsOf(pre: Prefill): Suggestion[] {
  return pre.remaining.flatMap((field) => {
    const value = pre.data[field];
    const evidence = [...underFields(pre.evidence, [field]).values()][0];
    return isComplete(value) && evidence ? [{ field, value, source: evidence.source, text: evidence.text }] : [];
  });
}

/** A warning that says which fields the builtin engine answered, so callers see what the model did not. */
function prefillWarning(pre: Prefill): Warning {
  const total = pre.trusted.length + pre.remaining.length;
  const rest = pre.remaining.length === 0 ? "no model call was needed" : "the model was asked for the rest";
  return { code: "prefilled", message: `${pre.trusted.length} of ${total} fields answered by the builtin engine (${pre.trusted.join(", ")}); ${rest}`, path: "" };
}

/** A value with nothing left to find: not null, not an empty list, and no null inside an object. */
export function isComplete(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).every(isComplete);
  return true;
}

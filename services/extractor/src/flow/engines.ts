/**
 * The engines' stage of an extraction: the builtin engine alone, or hybrid
 * extraction with a model. In hybrid extraction the builtin engine answers
 * first; the fields it answered from sources proven across the corpus's
 * sites (prefill-calibration.ts) stand, and a page it answers whole that way costs
 * no model call at all. Otherwise the model reads the page for the whole
 * schema, with the builtin engine's answers beside it as suggestions to
 * confirm or correct; its answer fills and corrects the fields not proven,
 * but never erases a value the builtin engine read from the page
 * (hybrid-merge.ts).
 */
import { Engine } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { extractBuiltin } from "../engines/builtin/index.js";
import { extractWithModel, modelInputsFor, type PromptSettings } from "../engines/model/extract.js";
import { PageStatements } from "../page/stated.js";
import { EvidenceTrail, evidenceMessages, presentIn, underFields, withStatedValues } from "../schema/evidence.js";
import type { SchemaCache } from "../schema/schema-cache.js";
import { shape } from "../schema/shape.js";
import { mergeReadings } from "./hybrid-merge.js";
import type { EngineAnswer, ExtractionJob } from "./job.js";
import { prefill, prefillWarning, suggestionsOf } from "./prefill.js";
import { calibrated, fieldKinds } from "./prefill-calibration.js";
import { askedOf, readTask } from "./task-fields.js";

/** See EXTRACT_HYBRID in config.ts. */
type HybridMode = "proven" | "confident" | "off";

export interface EngineSettings {
  schemas: SchemaCache;
  /** How a page is put to the model; also used without one, for include_model_input. */
  prompts: PromptSettings;
  /** With a model, which of the builtin engine's answers stand without it (EXTRACT_HYBRID). */
  hybrid: HybridMode;
}

/** Extracts with the builtin engine alone, or with the model after the builtin engine's pre-fill. */
export async function answerByEngines(job: ExtractionJob, settings: EngineSettings): Promise<EngineAnswer> {
  const { schema, page, llm } = job;
  if (!llm) {
    // Evidence is gathered for every answer (each value's status is read from it); its selectors only when returned.
    const trail = new EvidenceTrail({ selectors: job.evidence });
    const shaped = shape(schema.tree, extractBuiltin(schema.tree, page, trail), page.url);
    const stated = withStatedValues(presentIn(trail.evidence, shaped.data), shaped.data, new PageStatements(page));
    const evidence = calibrated(stated, fieldKinds(schema.tree));
    const response = {
      dataJson: JSON.stringify(shaped.data),
      engine: Engine.ENGINE_BUILTIN,
      model: "",
      warnings: [...shaped.warnings, ...trail.warnings],
      modelInputs: job.includeModelInput
        ? modelInputsFor({ schema, page, taskDescription: job.taskDescription, suggestions: [] }, settings.prompts)
        : [],
      evidence: evidenceMessages(evidence),
      fieldStatus: [],
    };
    return { response, prefilled: undefined, prefilledFields: [], model: undefined };
  }
  // The fields a task description asks the model to produce or to write its way are the model's; the rest are pre-filled.
  const asked = askedOf(readTask(job.taskDescription, schema.tree), schema.tree);
  const pre = settings.hybrid !== "off" ? prefill(schema.tree, page, settings.hybrid, asked) : undefined;
  if (pre && pre.remaining.length === 0) {
    const evidence = evidenceMessages(underFields(pre.evidence, pre.trusted));
    const response = {
      dataJson: JSON.stringify(pre.data),
      engine: Engine.ENGINE_BUILTIN,
      model: "",
      warnings: [prefillWarning(pre)],
      modelInputs: [],
      evidence,
      fieldStatus: [],
    };
    return { response, prefilled: pre.trusted.length, prefilledFields: pre.trusted, model: undefined };
  }
  // The model is asked the whole schema even where the builtin engine's proven values will stand: the
  // fields together say what the page is read for (which of its products, which of its articles).
  const question = { schema, page, taskDescription: job.taskDescription, suggestions: pre ? suggestionsOf(pre) : [] };
  const { response: answer, facts } = await extractWithModel(
    llm,
    settings.prompts,
    question,
    job.includeModelInput,
    job.bounds,
  );
  if (!pre) return { response: answer, prefilled: undefined, prefilledFields: [], model: facts };
  const merged = mergeReadings(
    schema.tree.fields.map(({ name }) => name),
    pre,
    {
      data: JSON.parse(answer.dataJson) as Record<string, unknown>,
      evidence: answer.evidence,
      ungrounded: facts.ungrounded,
      warnings: answer.warnings,
    },
  );
  const warnings = pre.trusted.length > 0 ? [prefillWarning(pre), ...merged.warnings] : merged.warnings;
  return {
    response: { ...answer, dataJson: JSON.stringify(merged.data), warnings, evidence: merged.evidence },
    prefilled: pre.trusted.length,
    prefilledFields: merged.builtinFields,
    model: facts,
  };
}

/** The engines' answer for the fields a template left (none: nothing to ask). */
export async function answerRemaining(
  job: ExtractionJob,
  settings: EngineSettings,
  remaining: string[],
): Promise<EngineAnswer> {
  if (remaining.length > 0)
    return answerByEngines(
      { ...job, schema: settings.schemas.narrowed(job.schemaJson, remaining, job.fieldHints, job.fieldRules) },
      settings,
    );
  const response = {
    dataJson: "{}",
    engine: Engine.ENGINE_BUILTIN,
    model: "",
    warnings: [],
    modelInputs: [],
    evidence: [],
    fieldStatus: [],
  };
  return { response, prefilled: undefined, prefilledFields: [], model: undefined };
}

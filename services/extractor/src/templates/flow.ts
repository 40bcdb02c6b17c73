/**
 * Templates in an extraction's flow: the page's template answers the fields
 * its trusted locators find, the builtin engine and the model (hybrid.ts)
 * the rest, and a "template" warning says which fields the template
 * answered. Then, off the caller's path, the page teaches its template: the
 * model's values that grounding found on the page, and builtin values the
 * page states in its structured data.
 */
import { createHash } from "node:crypto";
import type { Logger, ObjectNode } from "@winnow/platform";
import { Engine, type Evidence as EvidenceMessage, type Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { childPointer, MAX_TEXT } from "../evidence.js";
import { extractHybrid, isComplete, type Extraction, type ExtractionJob, type HybridSettings } from "../hybrid.js";
import type { Page } from "../page.js";
import { escapePointer, shape } from "../shape.js";
import type { TemplateFieldAnswer, TemplateLearner } from "./learner.js";
import { PageIndex } from "./page-index.js";
import { pageLayout, type PageLayout, type TemplateKey } from "./signature.js";
import { StatedValues } from "./stated.js";

export interface TemplateSettings extends HybridSettings {
  /** Undefined when template learning is off. */
  templates: TemplateLearner | undefined;
  logger: Logger;
}

export interface TemplatedExtraction extends Extraction {
  /** The fields the template answered, with what showed them. */
  templated: Map<string, TemplateFieldAnswer>;
  /** Learning from this page; settles after the answer and never rejects (a failure is logged). */
  learning: Promise<void>;
}

export async function extractWithTemplates(job: ExtractionJob, settings: TemplateSettings): Promise<TemplatedExtraction> {
  const { templates } = settings;
  // With a task description the fields may be derived rather than shown, as for the builtin pre-fill.
  const layout = templates && !job.taskDescription.trim() ? pageLayout(job.page.$, job.page.url) : undefined;
  const key = layout && (await templates?.templateFor(layout));
  if (!templates || !layout || !key) return { ...(await extractHybrid(job, settings)), templated: new Map(), learning: Promise.resolve() };
  const { tree } = job.schema;
  // One index of the page for the template's answer and for learning after it: its texts are computed once.
  const index = new PageIndex(job.page.$, job.page.baseUrl);
  const answers = await templates.answer(key, tree, index, job.llm !== undefined);
  const remaining = tree.fields.map((field) => field.name).filter((name) => !answers.has(name));
  // When the model reads the page, it is asked every field the template leaves (hybrid.ts), so the template learns the
  // model's reading of the fields the builtin engine answers too.
  const rest = answers.size === 0 ? await extractHybrid(job, settings) : await answerRest(job, settings, remaining);
  const learning = learn(templates, key, layout, tree, job.page, index, rest, remaining).catch((error: unknown) => {
    settings.logger.warn({ err: error, host: key.host }, "template learning failed");
  });
  if (answers.size === 0) return { ...rest, templated: answers, learning };
  const restData = JSON.parse(rest.response.dataJson) as Record<string, unknown>;
  const merged = Object.fromEntries(tree.fields.map((field) => [field.name, answers.has(field.name) ? answers.get(field.name)!.value : (restData[field.name] ?? null)]));
  // shape.ts has the last word: what a template read can never make the answer invalid for its schema.
  const shaped = shape(tree, merged);
  const evidence = job.evidence ? [...templateEvidence(answers, shaped.data as Record<string, unknown>), ...rest.response.evidence] : [];
  const engine = remaining.length === 0 ? Engine.ENGINE_TEMPLATE : rest.response.engine;
  const response = { ...rest.response, engine, dataJson: JSON.stringify(shaped.data), warnings: [templateWarning(answers, tree), ...rest.response.warnings, ...shaped.warnings], evidence };
  return { ...rest, response, templated: answers, learning };
}

async function answerRest(job: ExtractionJob, settings: TemplateSettings, remaining: string[]): Promise<Extraction> {
  if (remaining.length > 0) return extractHybrid({ ...job, schema: settings.schemas.narrowed(job.schemaJson, remaining) }, settings);
  const response = { dataJson: "{}", engine: Engine.ENGINE_BUILTIN, model: "", warnings: [], modelInputs: [], evidence: [] };
  return { response, prefilled: undefined, prefilledFields: [] };
}

/** Where the template read each value it answered: the element its locator found, and that element's text. */
function templateEvidence(answers: Map<string, TemplateFieldAnswer>, data: Record<string, unknown>): EvidenceMessage[] {
  return [...answers].flatMap(([name, { selector, text, confidence }]) =>
    isComplete(data[name]) ? [{ pointer: childPointer("", name), source: "template", text: text.slice(0, MAX_TEXT), selector, confidence, grounded: true }] : [],
  );
}

/** Which fields the template answered, so callers see what the engines did not; "(absent)" marks those its pages never show. */
function templateWarning(answers: Map<string, TemplateFieldAnswer>, tree: ObjectNode): Warning {
  const names = tree.fields.map((field) => field.name).filter((name) => answers.has(name)).map((name) => (answers.get(name)!.value === null ? `${name} (absent)` : name));
  const rest = names.length === tree.fields.length ? "no model call was needed" : "the other engines were asked for the rest";
  return { code: "template", message: `${names.length} of ${tree.fields.length} fields answered by the page's learned template (${names.join(", ")}); ${rest}`, path: "" };
}

/**
 * The values known with confidence on this page, taught to its template:
 * the model's answers that grounding found on the page (null for a field it
 * read the whole page for and did not find), and the builtin engine's
 * answers that the page states in its structured data. A page with none
 * teaches nothing and is not counted.
 */
async function learn(templates: TemplateLearner, key: TemplateKey, layout: PageLayout, tree: ObjectNode, page: Page, index: PageIndex, rest: Extraction, asked: string[]): Promise<void> {
  const data = JSON.parse(rest.response.dataJson) as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const byModel = rest.response.engine === Engine.ENGINE_LLM;
  if (byModel) {
    const ungrounded = new Set(rest.response.warnings.filter((w) => w.code === "ungrounded").map((w) => w.path.split("/")[1]));
    // A null says the field is absent only when the model read the whole page.
    const whole = !rest.response.warnings.some((w) => w.code === "content-truncated");
    for (const name of asked) {
      if (rest.prefilledFields.includes(name) || ungrounded.has(escapePointer(name)) || (data[name] === null && !whole)) continue;
      values[name] = data[name] ?? null;
    }
  }
  const byBuiltin = byModel ? rest.prefilledFields : asked.filter((name) => Object.hasOwn(data, name));
  if (byBuiltin.length > 0) {
    const stated = new StatedValues(page);
    for (const name of byBuiltin) if (stated.states(data[name])) values[name] = data[name];
  }
  if (Object.keys(values).length === 0) return;
  // A page is known by its address; without one, by its text (a caller sending the same HTML again).
  const id = page.url?.href ?? createHash("sha256").update(page.$.text()).digest("hex");
  await templates.learn(key, layout, tree, index, values, id);
}

/**
 * An extraction from request to answer, as stages that hand typed facts on:
 * the page's learned template answers what its trusted locators find
 * (template-answer.ts); the engines answer the rest, the builtin engine
 * alone or its pre-fill and the model with grounding (engines.ts); then,
 * off the caller's path, the page teaches its template (learning.ts) when
 * the request lets it (template-scope.ts). Last, each value's status is
 * read from what the answer knows of it (status.ts).
 */
import type { Logger } from "@winnow/platform";
import type { ExtractResponse, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { nextPageUrl } from "../page/next-page.js";
import { PageStatements } from "../page/stated.js";
import { childPointer } from "../schema/evidence.js";
import type { TemplateFieldAnswer, TemplateLearner } from "../templates/learner.js";
import { provenAbsent } from "./absence.js";
import { answerByEngines, answerRemaining, type EngineSettings } from "./engines.js";
import type { EngineAnswer, ExtractionJob } from "./job.js";
import { learnFromPage } from "./learning.js";
import { withStatus } from "./status.js";
import { withoutModel } from "./task-answer.js";
import { answerByTemplate, withTemplateAnswers } from "./template-answer.js";

export interface FlowSettings extends EngineSettings {
  /** Undefined when template learning is off. */
  templates: TemplateLearner | undefined;
  logger: Logger;
}

export interface Extraction extends EngineAnswer {
  /** The fields the template answered, with what showed them. */
  templated: Map<string, TemplateFieldAnswer>;
  /** Learning from this page; settles after the answer and never rejects (a failure is logged). */
  learning: Promise<void>;
}

export async function runExtraction(job: ExtractionJob, settings: FlowSettings): Promise<Extraction> {
  const extraction = await answer(job, settings);
  return { ...extraction, response: finished(job, extraction) };
}

/** The answer as the caller gets it: with the page's own warnings, each value's status, and evidence when asked. */
function finished(job: ExtractionJob, extraction: Extraction): ExtractResponse {
  const { tree } = job.schema;
  const base = extraction.response;
  let response = { ...base, warnings: [...job.pageWarnings, ...base.warnings] };
  if (!job.llm && job.taskDescription.trim() !== "")
    response = withoutModel(response, tree, job.taskDescription, job.page);
  const page = new PageStatements(job.page);
  response = withStatus(response, {
    tree,
    taskDescription: job.taskDescription,
    absent: (field) => provenAbsent(page, field),
  });
  // The gateway reads whole listings (options.pages) by the page's next listing page; a single page's answer skips it.
  if (job.wantNextPage) response = { ...response, nextPageUrl: nextPageUrl(job.page) };
  return job.evidence ? response : { ...response, evidence: [] };
}

async function answer(job: ExtractionJob, settings: FlowSettings): Promise<Extraction> {
  const { templates } = settings;
  const template = await answerByTemplate(job, templates);
  if (!templates || !template)
    return { ...(await answerByEngines(job, settings)), templated: new Map(), learning: Promise.resolve() };
  const { tree } = job.schema;
  const { answers } = template;
  const remaining = tree.fields.map((field) => field.name).filter((name) => !answers.has(name));
  // On a page whose template answers, the fields the caller already holds are not worth a model call of their own:
  // what the template reads of them still checks the caller's values, and pages the template does not answer (the
  // first of a layout, and each it verifies) still ask the model for them.
  const asked = answers.size === 0 ? remaining : remaining.filter((name) => !job.knownFields.includes(name));
  // When the model reads the page, it is asked every field the template leaves (engines.ts), so the template learns the
  // model's reading of the fields the builtin engine answers too.
  const rest = answers.size === 0 ? await answerByEngines(job, settings) : await answerRemaining(job, settings, asked);
  const learning = job.templateScope?.learn
    ? learnFromPage(templates, template, tree, job.page, rest, asked).catch((error: unknown) => {
        settings.logger.warn({ err: error, host: template.key.host }, "template learning failed");
      })
    : Promise.resolve();
  if (answers.size === 0) return { ...rest, templated: answers, learning };
  const unasked = remaining.filter((name) => !asked.includes(name));
  const response = withTemplateAnswers(tree, answers, rest.response, asked);
  return {
    ...rest,
    response: { ...response, warnings: [...response.warnings, ...unasked.map(knownWarning)] },
    templated: answers,
    learning,
  };
}

/** A field the caller holds that the template did not answer and no model was asked: null, and said why. */
function knownWarning(name: string): Warning {
  return {
    code: "needs-model",
    message: "not read: the caller holds this field's value, and the page's learned template does not show it",
    path: childPointer("", name),
  };
}

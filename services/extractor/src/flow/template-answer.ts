/**
 * The template's stage of an extraction: the page's learned template
 * answers the fields its trusted locators find, unless the page states
 * otherwise (template-conflicts.ts), and a "template" warning says which,
 * so callers see what the engines did not.
 */
import type { ObjectNode } from "@winnow/platform";
import {
  Engine,
  type Evidence as EvidenceMessage,
  type ExtractResponse,
  type Warning,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { PageIndex } from "../page/page-index.js";
import { childPointer, MAX_TEXT } from "../schema/evidence.js";
import { isComplete, shape } from "../schema/shape.js";
import type { TemplateFieldAnswer, TemplateLearner } from "../templates/learner.js";
import { type PageLayout, type PageTemplate, pageLayout } from "../templates/signature.js";
import type { ExtractionJob } from "./job.js";
import { fieldKinds, statedConfidence } from "./prefill-calibration.js";
import { conflictsWithPage } from "./template-conflicts.js";

/** The page's template and what it answered; undefined when templates are off or do not apply. */
export interface TemplateAnswer {
  key: PageTemplate;
  layout: PageLayout;
  /** One index of the page for the template's answer and for learning after it: its texts are computed once. */
  index: PageIndex;
  /** The fields the template answered, with what showed them. */
  answers: Map<string, TemplateFieldAnswer>;
}

export async function answerByTemplate(
  job: ExtractionJob,
  templates: TemplateLearner | undefined,
): Promise<TemplateAnswer | undefined> {
  const scope = job.templateScope;
  // With a task description the fields may be derived rather than shown, as for the builtin pre-fill.
  const layout =
    templates && scope && !job.taskDescription.trim() ? pageLayout(job.page.$, job.page.url, scope.tenant) : undefined;
  const key = layout && (await templates?.templateFor(layout));
  if (!templates || !layout || !key) return undefined;
  const index = new PageIndex(job.page.$, job.page.baseUrl);
  const answers = await templates.answer(key, job.schema.tree, index, job.llm !== undefined);
  for (const name of conflictsWithPage(job.schema.tree, job.page, answers)) answers.delete(name);
  return { key, layout, index, answers };
}

/** The template's answers with the engines' answer for the rest, shaped for the schema. */
export function withTemplateAnswers(
  tree: ObjectNode,
  answers: Map<string, TemplateFieldAnswer>,
  rest: ExtractResponse,
  remaining: string[],
): ExtractResponse {
  const restData = JSON.parse(rest.dataJson) as Record<string, unknown>;
  const merged = Object.fromEntries(
    tree.fields.map((field) => [
      field.name,
      answers.has(field.name) ? answers.get(field.name)!.value : (restData[field.name] ?? null),
    ]),
  );
  // shape.ts has the last word: what a template read can never make the answer invalid for its schema.
  const shaped = shape(tree, merged);
  const evidence = [...templateEvidence(tree, answers, shaped.data as Record<string, unknown>), ...rest.evidence];
  const engine = remaining.length === 0 ? Engine.ENGINE_TEMPLATE : rest.engine;
  return {
    ...rest,
    engine,
    dataJson: JSON.stringify(shaped.data),
    warnings: [templateWarning(answers, tree), ...rest.warnings, ...shaped.warnings],
    evidence,
  };
}

/**
 * Where the template read each value it answered: the element its locator found, and that element's text. The
 * confidence is the locator's record on the site's own pages, never above what templates earned across sites.
 */
function templateEvidence(
  tree: ObjectNode,
  answers: Map<string, TemplateFieldAnswer>,
  data: Record<string, unknown>,
): EvidenceMessage[] {
  const kinds = fieldKinds(tree);
  return [...answers].flatMap(([name, { selector, text, confidence }]) =>
    isComplete(data[name])
      ? [
          {
            pointer: childPointer("", name),
            source: "template",
            text: text.slice(0, MAX_TEXT),
            selector,
            confidence: statedConfidence("template", kinds.get(name) ?? "text", confidence),
            grounded: true,
            // Set once the whole answer is known (flow/status.ts).
            status: "",
          },
        ]
      : [],
  );
}

/** Which fields the template answered; "(absent)" marks those its pages never show. */
function templateWarning(answers: Map<string, TemplateFieldAnswer>, tree: ObjectNode): Warning {
  const names = tree.fields
    .map((field) => field.name)
    .filter((name) => answers.has(name))
    .map((name) => (answers.get(name)!.value === null ? `${name} (absent)` : name));
  const rest =
    names.length === tree.fields.length ? "no model call was needed" : "the other engines were asked for the rest";
  return {
    code: "template",
    message: `${names.length} of ${tree.fields.length} fields answered by the page's learned template (${names.join(", ")}); ${rest}`,
    path: "",
  };
}

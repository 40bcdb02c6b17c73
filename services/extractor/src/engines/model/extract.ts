/**
 * The model path of an extraction: page content split into parts under the
 * token budget, one model call per part (in parallel, at most maxParallel at
 * a time), each answer shaped, the parts merged in code, then grounded.
 */

import { WinnowError } from "@winnow/platform";
import {
  Engine,
  type ExtractResponse,
  type ModelInput,
  type TokenUsage,
  type Warning,
} from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import pLimit from "p-limit";
import { textOf } from "../../page/elements.js";
import type { Page } from "../../page/page.js";
import { ShownText } from "../../page/text-match.js";
import { childPointer, evidenceMessages, presentIn } from "../../schema/evidence.js";
import type { CompiledSchema } from "../../schema/schema-cache.js";
import { shape } from "../../schema/shape.js";
import { type ShownList, shownLists } from "../builtin/index.js";
import { urlsWanted, writeModelContent } from "./content.js";
import { type GroundingMode, groundAnswer } from "./grounding.js";
import type { CallBounds, LlmAnswer, ModelReader } from "./llm.js";
import { mergeAnswers, type ShownTimes } from "./merge.js";
import { splitContent } from "./parts.js";
import { buildModelCall, type PromptRequest, type Suggestion, toModelInput } from "./prompt.js";

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
  /** False when the page needed more parts than are read. */
  whole: boolean;
  /** The lists the schema asks for as the page's layout shows them: what the answer's lists are held against. */
  lists: ShownList[];
}

/** What the model is asked about a page. */
export interface ModelQuestion {
  /** The fields asked (in hybrid extraction, those the builtin engine could not prove). */
  schema: CompiledSchema;
  page: Page;
  taskDescription: string;
  /** Values for the model to confirm or correct. */
  suggestions: Suggestion[];
}

/** Writes the page into one prompt per part, cut between the records of the lists the schema asks for. */
function preparePrompts(
  { schema, page, taskDescription, suggestions }: ModelQuestion,
  settings: PromptSettings,
): Prompts {
  const lists = shownLists(page.$, page.baseUrl, schema.tree);
  const content = writeModelContent(
    page,
    urlsWanted(schema.tree),
    lists.flatMap((list) => list.records),
  );
  const { parts, warnings, whole } = splitContent(content, settings.pageTokens, settings.maxParts);
  return {
    requests: parts.map((part) => ({
      responseFormat: schema.responseFormat,
      content: part,
      taskDescription,
      suggestions: parts.length === 1 ? suggestions : suggestionsFor(part, suggestions),
    })),
    text: parts.join("\n\n"),
    warnings,
    whole,
    lists,
  };
}

/** What the model would be sent for this page, for include_model_input when no model is called. */
export function modelInputsFor(question: ModelQuestion, settings: PromptSettings): ModelInput[] {
  return preparePrompts(question, settings).requests.map((request) =>
    toModelInput(buildModelCall(request, "json_schema")),
  );
}

/** What the model's answer knows of itself, for the stages after it (never read back out of its warnings). */
export interface ModelFacts {
  /** Top-level fields holding a value grounding did not find on the page (none with grounding off). */
  ungrounded: Set<string>;
  /** Every part of the page was read: a null then says the page does not state the field. */
  wholePageRead: boolean;
}

export interface ModelAnswer {
  response: ExtractResponse;
  facts: ModelFacts;
}

export async function extractWithModel(
  llm: ModelReader,
  settings: PromptSettings,
  question: ModelQuestion,
  includeModelInput: boolean,
  bounds: CallBounds,
): Promise<ModelAnswer> {
  const { schema, taskDescription } = question;
  const prompts = preparePrompts(question, settings);
  const { answers, texts, unread } = await readParts(llm, prompts.requests, settings.maxParallel, bounds);
  const wholePageRead = prompts.whole && unread.length === 0;
  const shaped = answers.map((answer) => shape(schema.tree, answer.value, question.page.url));
  const merged = mergeAnswers(
    schema.tree,
    shaped.map((s) => s.data as Record<string, unknown>),
    texts,
    shownTimesIn(prompts.lists),
  );
  const grounded = groundAnswer(
    schema.tree,
    merged.data,
    { page: question.page, pageText: prompts.text },
    taskDescription,
    settings.grounding,
  );
  const response = {
    dataJson: JSON.stringify(grounded.data),
    engine: Engine.ENGINE_LLM,
    model: answers[0]!.model,
    usage: totalUsage(answers),
    warnings: [
      ...prompts.warnings,
      ...unreadWarning(unread, prompts.requests.length),
      ...answers.flatMap((answer) => answer.warnings),
      ...shaped.flatMap((s) => s.warnings),
      ...merged.warnings,
      ...grounded.warnings,
      ...incompleteLists(prompts, grounded.data, wholePageRead),
    ],
    modelInputs: includeModelInput ? answers.map((answer) => answer.modelInput) : [],
    evidence: evidenceMessages(presentIn(grounded.evidence, grounded.data)),
    // Set once the whole answer is known (flow/status.ts).
    fieldStatus: [],
  };
  return { response, facts: { ungrounded: grounded.ungrounded, wholePageRead } };
}

/**
 * Time kept back from the caller's deadline for merging, shaping and the way
 * back: the parts must be answered before it, so that a page whose last
 * parts are slow answers from the parts that were read instead of timing out.
 */
function reserveMs(deadline: Date): number {
  return Math.min(2_000, Math.max(250, 0.05 * (deadline.getTime() - Date.now())));
}

/**
 * One model call per part, at most maxParallel at a time, all within the
 * deadline less the reserve. A part the deadline leaves unanswered (or
 * unsent) is left out, as long as one part was read; any other failure
 * fails the extraction and the parts still queued are not sent.
 */
async function readParts(
  llm: ModelReader,
  requests: PromptRequest[],
  maxParallel: number,
  bounds: CallBounds,
): Promise<{ answers: LlmAnswer[]; texts: string[]; unread: number[] }> {
  const partBounds = bounds.deadline
    ? { ...bounds, deadline: new Date(bounds.deadline.getTime() - reserveMs(bounds.deadline)) }
    : bounds;
  const limit = pLimit(maxParallel);
  const outOfTime = (error: unknown) =>
    error instanceof WinnowError && error.type === "deadline-exceeded" && !bounds.signal.aborted;
  const settled = await Promise.all(
    requests.map((request) =>
      limit(() =>
        llm.extract(request, partBounds).catch((error: unknown) => {
          if (outOfTime(error)) return undefined;
          limit.clearQueue();
          throw error;
        }),
      ),
    ),
  );
  const read = settled.flatMap((answer, index) =>
    answer === undefined ? [] : [{ answer, text: requests[index]!.content }],
  );
  if (read.length === 0)
    throw new WinnowError("deadline-exceeded", "the model did not answer any part of the page before the deadline");
  return {
    answers: read.map((r) => r.answer),
    texts: read.map((r) => r.text),
    unread: settled.flatMap((answer, index) => (answer === undefined ? [index + 1] : [])),
  };
}

/** How many records of a strong list on the page show every value of a record: the skeleton merging holds. */
function shownTimesIn(lists: ShownList[]): ShownTimes {
  const texts = new Map(
    lists
      .filter((list) => list.strong)
      .map((list) => [list.field, list.records.map((record) => new ShownText(record.map(textOf).join(" ")))]),
  );
  return (field, record) => texts.get(field)?.filter((text) => text.shows(record)).length;
}

/**
 * The suggestions for one part of a long page: a list of records holds only the records that part shows (its longest
 * text, as a title, is in it), so that each record is suggested where it is read and no part is told another's.
 */
function suggestionsFor(part: string, suggestions: Suggestion[]): Suggestion[] {
  const shown = new ShownText(part);
  return suggestions.flatMap((suggestion) => {
    const { value } = suggestion;
    if (!Array.isArray(value) || !value.some((item) => typeof item === "object" && item !== null)) return [suggestion];
    const here = value.filter((record) => shown.showsLongestText(record));
    return here.length > 0 ? [{ ...suggestion, value: here }] : [];
  });
}

/**
 * A list the answer returns fewer records of than the page's layout shows (a strong list: several records that fill
 * most fields), so that a list cut by a part limit, the deadline or a model that stopped early is never cut silently.
 */
function incompleteLists(prompts: Prompts, data: Record<string, unknown>, wholePageRead: boolean): Warning[] {
  return prompts.lists.flatMap(({ field, records, strong }) => {
    const returned = Array.isArray(data[field]) ? data[field].length : 0;
    if (!strong || returned >= records.length) return [];
    const why = wholePageRead ? "the model returned fewer" : "the page was read only in part";
    return [
      {
        code: "list-incomplete",
        message: `the page shows ${records.length} records; ${returned} were returned (${why})`,
        path: childPointer("", field),
      },
    ];
  });
}

function unreadWarning(unread: number[], parts: number): Warning[] {
  if (unread.length === 0) return [];
  return [
    {
      code: "content-truncated",
      message: `the deadline left no time for part${unread.length > 1 ? "s" : ""} ${unread.join(", ")} of ${parts}; fields found only there may be null (a longer REQUEST_TIMEOUT_MS, or a higher LLM_MAX_PARALLEL, reads long pages whole)`,
      path: "",
    },
  ];
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

/**
 * Grounding: are the model's values on the page? Every string and number of
 * a plain-extraction field is looked up in the text the model read
 * (normalised; numbers in their common written forms). Values that are not
 * found are reported as "ungrounded" warnings, or nulled in strict mode.
 *
 * Not checked, because the model is asked to produce rather than copy them:
 * - fields the task description names (a word of the field name, four
 *   letters or more, appears in it): summaries, sentiment, translations;
 * - fields whose name asks for a conversion: a duration unit, a scale or a
 *   format (`total_time_minutes`, `rating_1_to_5`, `date_iso8601`);
 * - booleans and free-form objects.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { nameHints, nameTokens } from "./field-names.js";
import { normalizeText, numbersIn, withoutUrls } from "./text-match.js";

export type GroundingMode = "off" | "warn" | "strict";

/** Long strings (a step of a recipe) may be reflowed by the model: most of their words on the page is enough. */
const LONG_STRING_WORDS = 6;
const LONG_STRING_COVERAGE = 0.9;

export function groundAnswer(
  tree: ObjectNode,
  data: Record<string, unknown>,
  pageText: string,
  taskDescription: string,
  mode: GroundingMode,
): { data: Record<string, unknown>; warnings: Warning[] } {
  if (mode === "off") return { data, warnings: [] };
  const page = new PageText(pageText);
  const warnings: Warning[] = [];
  const task = new Set(nameTokens(taskDescription));
  const walk = (node: SchemaNode, value: unknown, path: string): unknown => {
    if (value === null || value === undefined) return value;
    switch (node.kind) {
      case "object": {
        const object = value as Record<string, unknown>;
        return Object.fromEntries(
          node.fields.map((field) => {
            const fieldValue = Object.hasOwn(object, field.name) ? object[field.name] : null;
            return [field.name, isDerived(field.name, task) ? fieldValue : walk(field.node, fieldValue, `${path}/${field.name}`)];
          }),
        );
      }
      case "array":
        return (value as unknown[]).map((item, i) => walk(node.items, item, `${path}/${i}`)).filter((item) => item !== null);
      case "scalar": {
        if (page.supports(value)) return value;
        warnings.push({ code: "ungrounded", message: `${JSON.stringify(value)} was not found on the page${mode === "strict" ? "; it was set to null" : ""}`, path });
        return mode === "strict" ? null : value;
      }
      default:
        return value;
    }
  };
  return { data: walk(tree, data, "") as Record<string, unknown>, warnings };
}

function isDerived(name: string, task: Set<string>): boolean {
  const hints = nameHints(name);
  if (hints.durationUnit || hints.scale || hints.format) return true;
  return nameTokens(name).some((token) => token.length >= 4 && task.has(token));
}

class PageText {
  private readonly text: string;
  private readonly words: Set<string>;
  private numbers: Set<number> | undefined;

  constructor(text: string) {
    // Both forms: a value may run across a link ("½ tablespoon [olive oil](...)") or be the link's URL.
    this.text = `${normalizeText(text)}\n${normalizeText(withoutUrls(text))}`;
    this.words = new Set(this.text.split(/[^\p{L}\p{N}]+/u));
  }

  supports(value: unknown): boolean {
    if (typeof value === "number") {
      this.numbers ??= numbersIn(this.text);
      return this.numbers.has(value) || this.numbers.has(Math.abs(value));
    }
    if (typeof value !== "string") return true;
    const wanted = normalizeText(value);
    if (wanted === "" || this.text.includes(wanted)) return true;
    const words = wanted.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
    return words.length >= LONG_STRING_WORDS && words.filter((word) => this.words.has(word)).length / words.length >= LONG_STRING_COVERAGE;
  }
}

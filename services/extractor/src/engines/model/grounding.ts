/**
 * Grounding: are the model's values on the page? Each value of a
 * plain-extraction field is looked for as the page states it, at token level:
 * - a string as whole words of the text the model read (normalised: "Ann" is
 *   not in "Announcement");
 * - a number as one of the numbers the text writes as tokens of their own
 *   (in its common written forms; not the 4 of "A4" or "4.5");
 * - a URL as one of the page's own links or image sources, resolved against
 *   the page's address (page-urls.ts), even where the field's name or the
 *   task asks for one: a page links a URL, nothing derives it;
 * - a boolean by a marker the page shows that states it (stated-markers.ts);
 *   without one it is not warned of or nulled, only not grounded: a yes or
 *   no is the model's judgement, not a copy of the page's text.
 * Strings, numbers and URLs not found are reported as "ungrounded" warnings,
 * or nulled in strict mode.
 *
 * Not checked, because the model is asked to produce rather than copy them:
 * - fields the task description asks to produce or transform (summaries,
 *   sentiment, translations) or to write in a unit or format
 *   (task-fields.ts);
 * - fields whose name asks for a conversion: a duration unit, a scale or a
 *   format (`total_time_minutes`, `rating_1_to_5`, `date_iso8601`);
 * - free-form objects.
 */
import type { ObjectNode, SchemaNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { readTask, type TaskFields } from "../../flow/task-fields.js";
import type { Page } from "../../page/page.js";
import { looksLikeUrl, PageUrls } from "../../page/page-urls.js";
import { NUMBER_TOKEN, normalizeText, numberTokensIn, withoutUrls, wordsCovered } from "../../page/text-match.js";
import { childPointer, type EvidenceMap, MAX_TEXT } from "../../schema/evidence.js";
import { nameHints } from "../../schema/field-names.js";
import { StatedMarkers } from "./stated-markers.js";

export type GroundingMode = "off" | "warn" | "strict";

/**
 * How sure a model's value is, for its evidence: the model states no
 * confidence of its own, so it is how far the page supports the value. A
 * value found on the page, one produced rather than copied (derived, a
 * boolean, a free-form object), one not found.
 */
const MODEL_CONFIDENCE = { grounded: 0.8, derived: 0.5, ungrounded: 0.3 };

export interface Grounded {
  data: Record<string, unknown>;
  warnings: Warning[];
  /** Each value's evidence, source "model": the page text it was found in, or grounded false. */
  evidence: EvidenceMap;
  /** Top-level fields holding a value not found on the page (warned of, or nulled in strict mode; none when off). */
  ungrounded: Set<string>;
}

/** `pageText`: what the model read of `page`. */
export function groundAnswer(
  tree: ObjectNode,
  data: Record<string, unknown>,
  { page: parsed, pageText }: { page: Page; pageText: string },
  taskDescription: string,
  mode: GroundingMode,
): Grounded {
  const page = new PageText(pageText);
  const urls = new PageUrls(parsed);
  const markers = new StatedMarkers(parsed);
  const warnings: Warning[] = [];
  const evidence: EvidenceMap = new Map();
  const task = readTask(taskDescription, tree);
  const ungrounded = new Set<string>();
  // `top`: the top-level field the value is under; `name`: the field the value is of.
  const walk = (
    node: SchemaNode,
    value: unknown,
    path: string,
    derived: boolean,
    top: string,
    name: string,
  ): unknown => {
    if (value === null || value === undefined) return value;
    switch (node.kind) {
      case "object": {
        const object = value as Record<string, unknown>;
        return Object.fromEntries(
          node.fields.map((field) => {
            const fieldValue = Object.hasOwn(object, field.name) ? object[field.name] : null;
            return [
              field.name,
              walk(
                field.node,
                fieldValue,
                childPointer(path, field.name),
                derived || isDerived(field.name, task),
                path === "" ? field.name : top,
                field.name,
              ),
            ];
          }),
        );
      }
      case "array":
        return (value as unknown[])
          .map((item, i) => walk(node.items, item, childPointer(path, i), derived, top, name))
          .filter((item) => item !== null);
      case "scalar": {
        // A URL is checked whatever the field asks: no conversion or task makes one up, a page links it.
        const url = typeof value === "string" && looksLikeUrl(value.trim());
        if (derived && !url) {
          evidence.set(path, { source: "model", confidence: MODEL_CONFIDENCE.derived, grounded: false });
          return value;
        }
        if (typeof value === "boolean") {
          const text = markers.support(name, value);
          evidence.set(
            path,
            text === undefined
              ? { source: "model", confidence: MODEL_CONFIDENCE.derived, grounded: false }
              : { source: "model", text, confidence: MODEL_CONFIDENCE.grounded, grounded: true },
          );
          return value;
        }
        const text = url ? undefined : page.excerpt(value);
        if (url ? urls.has(value as string) : text !== undefined || page.supports(value)) {
          evidence.set(path, {
            source: "model",
            ...(text ? { text } : {}),
            confidence: MODEL_CONFIDENCE.grounded,
            grounded: true,
          });
          return value;
        }
        evidence.set(path, { source: "model", confidence: MODEL_CONFIDENCE.ungrounded, grounded: false });
        if (mode === "off") return value;
        ungrounded.add(top);
        warnings.push({
          code: "ungrounded",
          message: `${JSON.stringify(value)} was not found on the page${mode === "strict" ? "; it was set to null" : ""}`,
          path,
        });
        return mode === "strict" ? null : value;
      }
      default:
        evidence.set(path, { source: "model", confidence: MODEL_CONFIDENCE.derived, grounded: false });
        return value;
    }
  };
  const grounded = walk(tree, data, "", false, "", "") as Record<string, unknown>;
  // Off, the answer is the model's as it is; the evidence still says what the page supports.
  return { data: mode === "off" ? data : grounded, warnings, evidence, ungrounded };
}

/**
 * Whether the model is asked to produce the field's value rather than copy it: the task asks to produce it or to write
 * it in a unit or format (task-fields.ts), or its name asks a conversion.
 */
export function isDerived(name: string, task: TaskFields): boolean {
  return asksConversion(name) || task.produced.has(name) || task.instructed.has(name);
}

/** Whether a field's name asks for a conversion: a duration unit, a scale or a format. */
export function asksConversion(name: string): boolean {
  const hints = nameHints(name);
  return Boolean(hints.durationUnit || hints.scale || hints.format);
}

class PageText {
  private readonly raw: string;
  private readonly text: string;
  private readonly words: Set<string>;
  private numbers: Set<number> | undefined;

  constructor(text: string) {
    this.raw = text;
    // Both forms: a value may run across a link ("½ tablespoon [olive oil](...)") or be the link's URL.
    this.text = `${normalizeText(text)}\n${normalizeText(withoutUrls(text))}`;
    this.words = new Set(this.text.split(/[^\p{L}\p{N}]+/u));
  }

  supports(value: unknown): boolean {
    if (typeof value === "number") {
      this.numbers ??= numberTokensIn(this.text);
      return this.numbers.has(value) || this.numbers.has(Math.abs(value));
    }
    if (typeof value !== "string") return true;
    const wanted = normalizeText(value);
    if (wanted === "" || hasWhole(this.text, wanted)) return true;
    const words = wanted.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
    return wordsCovered(words, this.words);
  }

  /**
   * The line of the page text that writes the value as it is (any case and spacing; a number in a common written form),
   * at most MAX_TEXT characters around it.
   */
  excerpt(value: unknown): string | undefined {
    if (typeof value === "number")
      return this.lineOf((match) => numberTokensIn(match).has(Math.abs(value)), NUMBER_TOKEN);
    if (typeof value !== "string" || value.trim() === "") return undefined;
    const trimmed = value.trim();
    const words = trimmed.split(/\s+/).map((word) => [...word].map(written).join(""));
    // Whole words: a value that starts or ends with a letter or digit is not the middle of a word.
    const before = WORD_CHAR.test(trimmed.at(0)!) ? "(?<![\\p{L}\\p{N}])" : "";
    const after = WORD_CHAR.test(trimmed.at(-1)!) ? "(?![\\p{L}\\p{N}])" : "";
    return this.lineOf(() => true, new RegExp(`${before}${words.join("\\s+")}${after}`, "giu"));
  }

  private lineOf(accept: (match: string) => boolean, pattern: RegExp): string | undefined {
    for (const match of this.raw.matchAll(pattern)) {
      if (!accept(match[0])) continue;
      const start = this.raw.lastIndexOf("\n", match.index) + 1;
      const end = this.raw.indexOf("\n", match.index + match[0].length);
      const line = this.raw.slice(start, end < 0 ? undefined : end);
      const at = match.index - start;
      // A long line is cut around the value, which stays whole when it fits.
      const from = Math.max(0, Math.min(at - (MAX_TEXT - match[0].length) / 2, line.length - MAX_TEXT));
      return asRead(line.slice(Math.floor(from), Math.floor(from) + MAX_TEXT));
    }
    return undefined;
  }
}

/**
 * A line of the model's input as the page shows it: without the markup of
 * its rendering (heading and list marks, emphasis, link targets) and the
 * labels of its header lines (page-content.ts: "Title: ", "URL: ").
 */
function asRead(line: string): string {
  return withoutUrls(line)
    .replace(/^\s*(#{1,6}|[-*+>]|\d+\.|Title:|URL:)\s+/, "")
    .replace(/\*\*|__/g, "")
    .trim();
}

/**
 * A character of a value as the page may write it: quotes and dashes in any of their forms (as normalizeText folds
 * them).
 */
function written(char: string): string {
  if (/["\u201c\u201d\u201e\u2033]/.test(char)) return '["\u201c\u201d\u201e\u2033]';
  if (/['\u2018\u2019\u201a\u2032]/.test(char)) return "['\u2018\u2019\u201a\u2032]";
  if (/[-\u2010-\u2015\u2212]/.test(char)) return "[-\u2010-\u2015\u2212]";
  return char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether `text` holds `wanted` as whole words: not inside a longer word ("Ann" in "Announcement"). */
function hasWhole(text: string, wanted: string): boolean {
  const bounded = (at: number) => at < 0 || at >= text.length || !WORD_CHAR.test(text[at]!);
  const startsWord = WORD_CHAR.test(wanted[0]!);
  const endsWord = WORD_CHAR.test(wanted.at(-1)!);
  for (let at = text.indexOf(wanted); at >= 0; at = text.indexOf(wanted, at + 1))
    if ((!startsWord || bounded(at - 1)) && (!endsWord || bounded(at + wanted.length))) return true;
  return false;
}

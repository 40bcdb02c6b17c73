/**
 * Long pages: the content is split into parts of at most `budget` tokens,
 * on section boundaries (headings) where possible, then paragraphs, lines
 * and finally words. Every part repeats the page header (title, URL) so the
 * model knows what page it reads.
 */
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import type { ModelContent } from "./content.js";
import { countTokens } from "./tokens.js";

export interface ContentParts {
  parts: string[];
  warnings: Warning[];
  /** False when the page needed more than maxParts parts: the rest is not read. */
  whole: boolean;
}

/** Finer and finer cuts for a section too large for one part. */
const SEPARATORS = ["\n\n", "\n", " "];

export function splitContent(content: ModelContent, budget: number, maxParts: number): ContentParts {
  if (countTokens(content.text) <= budget) return { parts: [content.text], warnings: [], whole: true };
  const headerTokens = content.header ? countTokens(content.header) + 1 : 0;
  const room = Math.max(1, budget - headerTokens);
  const bodies = pack(
    content.sections.flatMap((section) => fit(section, room, 0)),
    room,
    "\n\n",
  );
  const parts = bodies.map((body) => (content.header ? `${content.header}\n\n${body}` : body));
  if (parts.length <= maxParts) return { parts, warnings: [], whole: true };
  return {
    parts: parts.slice(0, maxParts),
    whole: false,
    warnings: [
      {
        code: "content-truncated",
        message: `the page needs ${parts.length} parts of ${budget} tokens; only the first ${maxParts} were read, so fields found only in the rest may be null`,
        path: "",
      },
    ],
  };
}

/**
 * The text as pieces of at most `room` tokens, cut at the coarsest separator
 * that works. Counts are summed per unit (counting every joined prefix again
 * would be quadratic); a token per separator keeps the sum on the safe side.
 */
function fit(text: string, room: number, level: number): string[] {
  if (countTokens(text) <= room) return [text];
  const separator = SEPARATORS[level];
  if (separator === undefined) return hardCut(text, room);
  return pack(
    text.split(separator).flatMap((unit) => fit(unit, room, level + 1)),
    room,
    separator,
  );
}

/** Joins consecutive units (each at most `room` tokens) into as few pieces of at most `room` tokens as possible. */
function pack(units: string[], room: number, separator: string): string[] {
  const pieces: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const unit of units) {
    const tokens = countTokens(unit) + 1;
    if (current.length > 0 && currentTokens + tokens > room) {
      pieces.push(current.join(separator));
      current = [];
      currentTokens = 0;
    }
    current.push(unit);
    currentTokens += tokens;
  }
  if (current.length > 0) pieces.push(current.join(separator));
  return pieces;
}

/** A single "word" longer than a part (a huge URL or a run of data): cut by characters. */
function hardCut(text: string, room: number): string[] {
  const pieces: string[] = [];
  // o200k averages well over one character a token; two keeps each piece under the room.
  for (let i = 0; i < text.length; i += room * 2) pieces.push(text.slice(i, i + room * 2));
  return pieces;
}

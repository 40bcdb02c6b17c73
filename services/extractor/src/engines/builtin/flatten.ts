/**
 * Structured values flattened to the texts and quantities a field takes:
 * step lists (HowToSection → HowToStep), people and things by name, images
 * by URL when the field wants one.
 */
import { decodeHTML } from "entities";
import { collapsed } from "../../page/elements.js";
import type { NameHints } from "../../schema/field-names.js";
import { inNamedUnit } from "../../schema/units.js";
import { URL_VALUED } from "./concepts.js";
import { asList, type Entity, ownValue } from "./graph.js";

/**
 * The text values in a structured value; HTML entities and tags left in the data ("&amp;", "<b>") are decoded and
 * dropped.
 */
export function texts(value: unknown, hints: NameHints): string[] {
  if (typeof value === "string") {
    // Some sites put markup in their structured data ("<a href=…>1/2 cup beans</a>"): its text is the value.
    const text = collapsed(decodeHTML(value.replace(INLINE_TAG, "").replace(ANY_TAG, " ")));
    // A link where a name or text is wanted (an author given as a profile URL) is not the value.
    return text && (wantsUrl(hints) || !/^https?:\/\/\S+$/.test(text)) ? [text] : [];
  }
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return value.flatMap((item) => texts(item, hints));
  if (typeof value !== "object" || value === null) return [];
  const entity = value as Entity;
  const list = ownValue(entity, "itemListElement");
  if (list !== undefined) return texts(list, hints);
  // A thing's URL is not its name: without a name or text, a person given only as a link has no text.
  const keys = wantsUrl(hints) ? ["url", "contentUrl", "@id"] : ["text", "name", "@value"];
  for (const key of keys) {
    const text = ownValue(entity, key);
    if (typeof text === "string" && text.trim()) return texts(text, hints);
  }
  return [];
}

const INLINE_TAG = /<\/?(a|b|i|em|strong|span|small|sup|sub|u)\b[^<>]*>/gi;
const ANY_TAG = /<\/?[a-z][^<>]*>/gi;

function wantsUrl(hints: NameHints): boolean {
  return hints.format === "url" || hints.subject.some((t) => URL_VALUED.has(t));
}

/** Texts for a list of strings; one text written line by line (steps in one string) is a list of its lines. */
export function listTexts(found: unknown, hints: NameHints): string[] {
  const list = asList(found);
  const only = list.length === 1 && typeof list[0] === "string" ? list[0].trim() : undefined;
  return only?.includes("\n") ? only.split(/\s*\n\s*/).flatMap((line) => texts(line, hints)) : texts(found, hints);
}

/** A number for a numeric field; durations become the unit the name states (PT1H30M → 90 for `_minutes`). */
export function toQuantity(value: unknown, hints: NameHints): unknown {
  if (typeof value === "object" && value !== null) return texts(value, hints)[0];
  if (typeof value !== "string") return value;
  // Without a unit in the name, converting would be a guess; shape.ts then refuses the text.
  return inNamedUnit(value, hints) ?? value;
}

/**
 * A JSON Schema's value rules (ExtractRequest.field_rules: enum, const and
 * format, by field pointer) put on the schema tree's scalar nodes, and a
 * value held to them. Both engines' answers pass through shape.ts, which
 * applies them: a value outside the allowed ones is not answered as found,
 * and a value in a format's other written forms is normalised where it reads
 * one way only.
 */
import { escapePointer, type ObjectNode, type SchemaNode, type ValueFormat } from "@winnow/platform";
import type { FieldRule, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { Ajv } from "ajv";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { isoDate } from "./normalize.js";

export type FieldRules = Record<string, FieldRule>;

const FORMATS: readonly ValueFormat[] = ["date", "date-time", "uri", "email"];

/** The tree with each rule on the scalar node its pointer names; pointers naming no scalar field are ignored. */
export function withRules(tree: ObjectNode, rules: FieldRules): ObjectNode {
  // The same tree, not a copy, where there is nothing to add: cached schemas share it.
  if (Object.keys(rules).length === 0) return tree;
  const ruled = (node: SchemaNode, pointer: string): SchemaNode => {
    switch (node.kind) {
      case "scalar":
        return Object.hasOwn(rules, pointer) ? { ...node, ...ruleFor(node.type, rules[pointer]!) } : node;
      case "object":
        return {
          ...node,
          fields: node.fields.map((field) => ({
            ...field,
            node: ruled(field.node, `${pointer}/${escapePointer(field.name)}`),
          })),
        };
      case "array":
        return { ...node, items: ruled(node.items, `${pointer}/0`) };
      default:
        return node;
    }
  };
  return ruled(tree, "") as ObjectNode;
}

/** The rule as node properties; allowed values not of the field's type, and formats not checked here, are ignored. */
function ruleFor(type: string, rule: FieldRule): Pick<Extract<SchemaNode, { kind: "scalar" }>, "allowed" | "format"> {
  const allowed = rule.allowedJson.flatMap((json) => {
    const value = parseJson(json);
    return OF_TYPE[type]?.(value) ? [value as string | number | boolean] : [];
  });
  const format = FORMATS.find((f) => f === rule.format && type === "string");
  return { ...(allowed.length > 0 ? { allowed } : {}), ...(format ? { format } : {}) };
}

const OF_TYPE: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: (value) => Number.isSafeInteger(value),
  boolean: (value) => typeof value === "boolean",
};

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** What a rule made of a value: the value to answer (null: none) and what to say of it. */
interface Ruled {
  value: unknown;
  warning?: Omit<Warning, "path">;
}

/**
 * The value (already of the node's type) held to the node's rules. An allowed value written otherwise (case, spaces,
 * "_" or "-") becomes the allowed spelling; any other value is dropped. A value not in its format is normalised where
 * its text reads one way only (a written date, a relative link against `base`), else kept and marked `format-unmet`.
 */
export function applyRules(
  node: Extract<SchemaNode, { kind: "scalar" }>,
  value: unknown,
  base: URL | undefined,
): Ruled {
  if (node.allowed) {
    const match = allowedMatch(node.allowed, value);
    if (match === undefined) {
      const listed = node.allowed
        .slice(0, 5)
        .map((v) => JSON.stringify(v))
        .join(", ");
      const more = node.allowed.length > 5 ? `, ... (${node.allowed.length} in all)` : "";
      return {
        value: null,
        warning: {
          code: "dropped-value",
          message: `expected one of ${listed}${more}, got ${JSON.stringify(value)}; returned null`,
        },
      };
    }
    if (match !== value)
      return {
        value: match,
        warning: {
          code: "coerced",
          message: `${JSON.stringify(value)} was read as the allowed ${JSON.stringify(match)}`,
        },
      };
  }
  if (node.format && typeof value === "string") return inFormat(node.format, value, base);
  return { value };
}

/** Letters alike whatever their case and the spaces, underscores and hyphens between words. */
function loose(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

function allowedMatch(
  allowed: readonly (string | number | boolean)[],
  value: unknown,
): string | number | boolean | undefined {
  if (allowed.includes(value as string | number | boolean)) return value as string | number | boolean;
  if (typeof value !== "string") return undefined;
  const key = loose(value);
  const matches = allowed.filter((option) => typeof option === "string" && loose(option) === key);
  // Two allowed values written alike ("in-stock", "in stock") leave the page's value unsettled.
  return matches.length === 1 ? matches[0] : undefined;
}

/** ajv-formats' full checks (a real calendar date, an RFC 3339 date-time with its offset, an absolute URI). */
const ajv = new Ajv({ formats: Object.fromEntries(FORMATS.map((format) => [format, fullFormats[format]])) });
const FORMAT_CHECKS = new Map(FORMATS.map((format) => [format, ajv.compile({ type: "string", format })]));

function isFormat(format: ValueFormat, text: string): boolean {
  return FORMAT_CHECKS.get(format)!(text);
}

/** An RFC 2822 / HTTP date with its zone ("Tue, 25 May 2010 10:30:00 GMT"): one instant, whatever the reader's zone. */
const ZONED_DATE_TIME =
  /^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s*(?:GMT|UTC|Z|[+-]\d{4})$/;

/** A relative reference as links write them: from the site's root ("/a", "//host/a"), the page's folder ("./a", "../a"), a query or a fragment; no spaces. */
const RELATIVE_REFERENCE = /^(?:\/|\.\.?\/|\?|#)\S*$/;

function inFormat(format: ValueFormat, text: string, base: URL | undefined): Ruled {
  if (isFormat(format, text)) return { value: text };
  const converted = normalised(format, text, base);
  if (converted !== undefined && isFormat(format, converted))
    return {
      value: converted,
      warning: { code: "coerced", message: `${JSON.stringify(text)} was written as a ${format}: ${converted}` },
    };
  return {
    value: text,
    warning: {
      code: "format-unmet",
      message: `${JSON.stringify(text)} is not a ${format} and reads as none; kept as the page states it`,
    },
  };
}

function normalised(format: ValueFormat, text: string, base: URL | undefined): string | undefined {
  switch (format) {
    case "date":
      return isoDate(text);
    case "date-time":
      // Only a text that states its zone names one instant; "May 25, 2010 10:30" is left as it is.
      return ZONED_DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : undefined;
    case "uri":
      // Only what is unmistakably a reference is resolved: "N/A" or "see below" would resolve to some address too.
      return base && RELATIVE_REFERENCE.test(text) && URL.canParse(text, base) ? new URL(text, base).href : undefined;
    case "email":
      return /^mailto:/i.test(text) ? decodedAddress(text.slice("mailto:".length).split("?")[0]!) : undefined;
  }
}

/** A mailto: link's address, percent-decoded; undefined when its encoding is broken. */
function decodedAddress(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

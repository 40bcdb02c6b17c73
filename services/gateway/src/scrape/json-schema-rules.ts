/**
 * A JSON Schema field's value rules, `enum`, `const` and `format`, read for
 * the extractor (ExtractRequest.field_rules): both engines answer within
 * them. Only scalar fields carry them, as only a scalar's value can be one of
 * a list.
 */
import type { FieldRule } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";

/** Formats the engines normalise to and check; any other `format` is read past as an annotation. */
const CHECKED_FORMATS = new Set(["date", "date-time", "uri", "email"]);
/** OpenAI's structured outputs take at most 500 enum values in a whole schema; one field holds no more. */
const MAX_ALLOWED_VALUES = 500;
/** An allowed value is a label, not a text to find: longer ones are refused rather than sent to the model. */
const MAX_VALUE_LENGTH = 200;

const IS_TYPE: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number" && Number.isFinite(value),
  integer: (value) => Number.isSafeInteger(value),
  boolean: (value) => typeof value === "boolean",
};

/**
 * The node's rule, or undefined when it has none. `type` is the node's one type; `refuse` names what cannot be
 * honoured, by pointer below `from`.
 */
export function readRule(
  node: Record<string, unknown>,
  type: string,
  from: string,
  refuse: (path: string, description: string) => void,
): FieldRule | undefined {
  const allowed = allowedValues(node, type, from, refuse);
  // `format` describes strings only (JSON Schema 2020-12 §7.1): on another type it is read past, as validators do.
  const format = type === "string" && typeof node.format === "string" && CHECKED_FORMATS.has(node.format);
  if (!allowed && !format) return undefined;
  return {
    allowedJson: (allowed ?? []).map((value) => JSON.stringify(value)),
    format: format ? String(node.format) : "",
  };
}

function allowedValues(
  node: Record<string, unknown>,
  type: string,
  from: string,
  refuse: (path: string, description: string) => void,
): unknown[] | undefined {
  const hasEnum = "enum" in node;
  const hasConst = "const" in node;
  if (!hasEnum && !hasConst) return undefined;
  if (hasEnum && hasConst) {
    refuse(`${from}/const`, 'give "enum" or "const", not both');
    return undefined;
  }
  const keyword = hasEnum ? "enum" : "const";
  if (!Object.hasOwn(IS_TYPE, type)) {
    refuse(`${from}/${keyword}`, `"${keyword}" is understood on a string, number, integer or boolean field only`);
    return undefined;
  }
  if (hasEnum && !Array.isArray(node.enum)) {
    refuse(`${from}/enum`, "must be an array of the allowed values");
    return undefined;
  }
  const listed = hasEnum ? (node.enum as unknown[]) : [node.const];
  const pathOf = (index: number) => (hasEnum ? `${from}/enum/${index}` : `${from}/const`);
  let refused = 0;
  listed.forEach((value, index) => {
    // null is always allowed already (every field is null where the page does not state it).
    if (value === null || IS_TYPE[type]!(value)) {
      if (typeof value === "string" && value.length > MAX_VALUE_LENGTH) {
        refused += 1;
        refuse(pathOf(index), `an allowed value of at most ${MAX_VALUE_LENGTH} characters`);
      }
      return;
    }
    refused += 1;
    refuse(
      pathOf(index),
      `is not a ${type === "integer" ? "whole number" : type}: each allowed value is of the field's type`,
    );
  });
  if (refused > 0) return undefined;
  const values = [...new Set(listed.filter((value) => value !== null))];
  if (values.length === 0) {
    refuse(`${from}/${keyword}`, "allows only null: a field that is always null asks nothing of the page");
    return undefined;
  }
  if (values.length > MAX_ALLOWED_VALUES) {
    refuse(`${from}/enum`, `at most ${MAX_ALLOWED_VALUES} allowed values`);
    return undefined;
  }
  return values;
}

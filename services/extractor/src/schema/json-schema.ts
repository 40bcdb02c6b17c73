/**
 * Compiles a parsed schema tree into the JSON Schema the model answers to
 * (OpenAI structured outputs). Strict mode needs every property listed in
 * `required` and `additionalProperties: false` everywhere, so "absent" is
 * expressed as a nullable type rather than a missing key.
 *
 * Free-form "array" and "object" nodes (any JSON list or object) cannot be
 * written in strict mode: it refuses objects without a closed property list.
 * Such schemas are sent with `strict: false`; the model is still guided by the
 * same schema, and shape.ts enforces the declared shape on whatever comes back.
 */
import { escapePointer, type ObjectNode, type SchemaNode, type ValueFormat } from "@winnow/platform";
import type { ResponseFormatJSONSchema } from "openai/resources/shared";
import { describeName } from "./field-names.js";

type JsonSchema = Record<string, unknown>;

/** Name given to the schema in response_format; the API requires [a-zA-Z0-9_-]{1,64}. */
const SCHEMA_NAME = "extraction";

/** What the caller says a field holds, by the field's JSON pointer in the schema (an array's item is "/0"). */
export type FieldHints = Record<string, string>;

export function toResponseFormat(tree: ObjectNode, hints: FieldHints = {}): ResponseFormatJSONSchema {
  return {
    type: "json_schema",
    json_schema: { name: SCHEMA_NAME, strict: !hasFreeForm(tree), schema: compileObject(tree, "", hints) },
  };
}

function compileObject(node: ObjectNode, pointer: string, hints: FieldHints): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of node.fields) {
    const fieldPointer = `${pointer}/${escapePointer(field.name)}`;
    const schema = compileNode(field.node, true, fieldPointer, hints);
    // The caller's own words first, then its JSON Schema's format, then what the name says (units, formats).
    const description = [
      Object.hasOwn(hints, fieldPointer) ? hints[fieldPointer] : undefined,
      formatOf(field.node),
      describeName(field.name),
    ]
      .filter(Boolean)
      .join(". ");
    // defineProperty: field names are data, never setters on the prototype.
    Object.defineProperty(properties, field.name, {
      value: description ? { description, ...schema } : schema,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { type: "object", properties, required: node.fields.map((f) => f.name), additionalProperties: false };
}

/** Fields are nullable (null means "not on the page"); array items are not: a missing item is simply left out. */
function compileNode(node: SchemaNode, nullable: boolean, pointer: string, hints: FieldHints): JsonSchema {
  switch (node.kind) {
    case "scalar": {
      const schema: JsonSchema = { type: nullable ? [node.type, "null"] : node.type };
      // A nullable field's enum lists null too: strict mode answers only what the enum lists.
      if (node.allowed) schema.enum = nullable ? [...node.allowed, null] : [...node.allowed];
      return schema;
    }
    case "any-array":
      return { type: nullable ? ["array", "null"] : "array" };
    case "any-object":
      return { type: nullable ? ["object", "null"] : "object" };
    case "object":
      return orNull(compileObject(node, pointer, hints), nullable);
    case "array": {
      const items = compileNode(node.items, false, `${pointer}/0`, hints);
      const format = formatOf(node.items);
      return orNull({ type: "array", items: format ? { description: format, ...items } : items }, nullable);
    }
  }
}

/**
 * What a JSON Schema format asks, in words: the format keyword itself is left out of the response format, as
 * OpenAI's strict mode refuses some formats ("uri") and other OpenAI-compatible servers may refuse any.
 */
const FORMAT_WORDS: Record<ValueFormat, string> = {
  date: "A date as YYYY-MM-DD",
  "date-time": "A date and time as RFC 3339, with its offset (2024-05-25T10:30:00Z)",
  uri: "An absolute URL",
  email: "An email address",
};

function formatOf(node: SchemaNode): string | undefined {
  return node.kind === "scalar" && node.format ? FORMAT_WORDS[node.format] : undefined;
}

function orNull(schema: JsonSchema, nullable: boolean): JsonSchema {
  return nullable ? { anyOf: [schema, { type: "null" }] } : schema;
}

function hasFreeForm(node: SchemaNode): boolean {
  switch (node.kind) {
    case "any-array":
    case "any-object":
      return true;
    case "scalar":
      return false;
    case "object":
      return node.fields.some((f) => hasFreeForm(f.node));
    case "array":
      return hasFreeForm(node.items);
  }
}

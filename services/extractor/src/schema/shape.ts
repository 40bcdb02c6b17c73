/**
 * Puts any value (a model's answer, an engine's candidates) into exactly the
 * schema's shape: every declared field present, unknown keys dropped, null
 * where a value is missing. A value of the wrong type is converted only when
 * nothing is lost or guessed ("1,299.00" to 1299, 42 to "42", "PT1H30M" to
 * 90 for a field named in minutes, "In stock" to true, "May 25, 2010" to
 * 2010-05-25 for a field named iso8601); otherwise it becomes null with a
 * warning naming its path. A JSON Schema's enum, const and format on a
 * field (field-rules.ts) are applied to the value of its type.
 */
import type { ObjectNode, ScalarType, SchemaNode } from "@winnow/platform";
import type { Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type NameHints, nameHints } from "./field-names.js";
import { applyRules } from "./field-rules.js";
import { isoDate, parseBoolean, parseNumber } from "./normalize.js";
import { inNamedUnit } from "./units.js";

export interface Shaped {
  data: Record<string, unknown>;
  warnings: Warning[];
}

/**
 * `base`, the page's address, resolves a relative link in a field whose JSON Schema format is `uri`
 * (field-rules.ts); without it such a link is kept as written.
 */
export function shape(tree: ObjectNode, value: unknown, base?: URL): Shaped {
  const context = { warnings: [] as Warning[], base };
  const data = shapeObject(tree, isRecord(value) ? value : {}, "", context);
  return { data, warnings: context.warnings };
}

/** What shaping one answer collects and needs throughout. */
interface ShapeContext {
  warnings: Warning[];
  base: URL | undefined;
}

function shapeObject(
  node: ObjectNode,
  value: Record<string, unknown>,
  path: string,
  context: ShapeContext,
): Record<string, unknown> {
  // Own properties only: a field named "toString" must not read Object.prototype.
  // fromEntries defines properties, so a "__proto__" key is plain data.
  return Object.fromEntries(
    node.fields.map((field) => {
      const fieldValue = Object.hasOwn(value, field.name) ? value[field.name] : undefined;
      return [
        field.name,
        shapeNode(field.node, fieldValue, `${path}/${escapePointer(field.name)}`, context, nameHints(field.name)),
      ];
    }),
  );
}

function shapeNode(node: SchemaNode, value: unknown, path: string, context: ShapeContext, hints: NameHints): unknown {
  const { warnings } = context;
  // Absent, and the blank strings models write for "absent", are null without comment.
  if (value === null || value === undefined || (typeof value === "string" && value.trim() === "")) return null;
  const drop = (expected: string) => {
    warnings.push({
      code: "dropped-value",
      message: `expected ${expected}, got ${describe(value)}; returned null`,
      path,
    });
    return null;
  };
  switch (node.kind) {
    case "scalar": {
      const scalar = shapeScalar(node.type, value, path, warnings, hints);
      if (scalar === undefined) return drop(SCALAR_NAMES[node.type]);
      if (!node.allowed && !node.format) return scalar;
      const ruled = applyRules(node, scalar, context.base);
      if (ruled.warning) warnings.push({ ...ruled.warning, path });
      return ruled.value;
    }
    case "object":
      return isRecord(value) ? shapeObject(node, value, path, context) : drop("an object");
    case "any-object":
      return isRecord(value) ? value : drop("an object");
    case "any-array":
      return Array.isArray(value) ? value : drop("an array");
    case "array": {
      let items: unknown[];
      if (Array.isArray(value)) items = value;
      else {
        warnings.push({ code: "coerced", message: "a single value was wrapped in a one-item array", path });
        items = [value];
      }
      // A missing or unusable item is left out rather than kept as null: the list holds what was found.
      return items.flatMap((item, index) => {
        const shaped = shapeNode(node.items, item, `${path}/${index}`, context, hints);
        return shaped === null ? [] : [shaped];
      });
    }
  }
}

const SCALAR_NAMES: Record<ScalarType, string> = {
  string: "a string",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
};

/** The value as the declared scalar type, or undefined when that would lose or guess something. */
function shapeScalar(type: ScalarType, value: unknown, path: string, warnings: Warning[], hints: NameHints): unknown {
  const coerced = <T>(result: T | undefined): T | undefined => {
    if (result !== undefined) {
      warnings.push({ code: "coerced", message: `${describe(value)} was converted to ${SCALAR_NAMES[type]}`, path });
    }
    return result;
  };
  switch (type) {
    case "string":
      if (typeof value === "string") return hints.format === "iso8601" ? asIsoDate(value.trim()) : value.trim();
      return (typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean"
        ? coerced(String(value))
        : undefined;
    case "number":
      if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
      return typeof value === "string" ? coerced(readQuantity(value, hints)) : undefined;
    case "integer": {
      // JSON cannot tell 42.0 from 42, so an integral number is simply an integer.
      if (typeof value === "number") return Number.isSafeInteger(value) ? value : undefined;
      const parsed = typeof value === "string" ? readQuantity(value, hints) : undefined;
      return coerced(parsed !== undefined && Number.isSafeInteger(parsed) ? parsed : undefined);
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      return typeof value === "string" ? coerced(parseBoolean(value)) : undefined;
  }
}

/** A number written as text, or a duration or measure in the unit the field's name states. */
function readQuantity(text: string, hints: NameHints): number | undefined {
  return parseNumber(text) ?? inNamedUnit(text, hints);
}

/** Dates already in ISO 8601 are kept as written (with their time); other written dates become YYYY-MM-DD. */
function asIsoDate(text: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? text : (isoDate(text) ?? text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (isRecord(value)) return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 37)}...` : text}`;
}

/** RFC 6901, like the paths in schema violations. */
function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A value with nothing left to find: not null, not an empty list, and no null inside an object. */
export function isComplete(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.values(value).every(isComplete);
  return true;
}

/**
 * The public schema language: a JSON object whose keys are field names and
 * whose values are type names, nested objects, or one-element arrays of an
 * item schema or a type name. Parsed into a tree once, with limits, and every
 * error naming the path of the bad node. Shared by the gateway (to refuse a
 * bad schema before any page is fetched) and the extractor.
 */
import type { Violation } from "./problems.js";

export type ScalarType = "string" | "number" | "integer" | "boolean";

/** The formats a JSON Schema's `format` names that the engines normalise to and check. */
export type ValueFormat = "date" | "date-time" | "uri" | "email";

export type SchemaNode =
  | {
      kind: "scalar";
      type: ScalarType;
      /**
       * A translated JSON Schema's `enum` (or `const`): the only values the field may hold. Never set by the language
       * itself: the extractor adds it from ExtractRequest.field_rules.
       */
      allowed?: readonly (string | number | boolean)[];
      /** A translated JSON Schema's `format`, added as `allowed` is. */
      format?: ValueFormat;
    }
  /** "array": a list of any JSON values. */
  | { kind: "any-array" }
  /** "object": any JSON object. */
  | { kind: "any-object" }
  | { kind: "object"; fields: Field[] }
  | { kind: "array"; items: SchemaNode };

export interface Field {
  name: string;
  node: SchemaNode;
}

export type ObjectNode = Extract<SchemaNode, { kind: "object" }>;

export const SCHEMA_LIMITS = {
  /** Nesting of objects and arrays below the top level. */
  maxDepth: 8,
  /** Fields across the whole schema. */
  maxFields: 300,
  maxNameLength: 128,
};

const SCALARS = new Set<string>(["string", "number", "integer", "boolean"]);
const TYPE_NAMES = [...SCALARS, "array", "object"].join(", ");
/** Names that would touch Object.prototype machinery wherever objects are built from the schema. */
const FORBIDDEN_NAMES = new Set(["__proto__", "constructor", "prototype"]);

export class SchemaError extends Error {
  override name = "SchemaError";
  constructor(readonly violations: Violation[]) {
    super(violations.map((v) => `${v.path}: ${v.description}`).join("; "));
  }
}

/** Parses a schema value (already JSON-decoded); throws SchemaError listing every problem found. */
export function parseSchema(value: unknown, basePath = "/schema"): ObjectNode {
  const violations: Violation[] = [];
  let fieldCount = 0;

  const fail = (path: string, description: string) => {
    if (violations.length < 50) violations.push({ path, description });
  };

  const parseObject = (obj: unknown, path: string, depth: number): ObjectNode => {
    const fields: Field[] = [];
    if (typeof obj !== "object" || obj === null || Array.isArray(obj)) {
      fail(path, "must be an object mapping field names to types");
      return { kind: "object", fields };
    }
    const keys = Object.keys(obj);
    if (keys.length === 0) fail(path, "must declare at least one field");
    for (const name of keys) {
      const fieldPath = `${path}/${escapePointer(name)}`;
      fieldCount += 1;
      if (fieldCount === SCHEMA_LIMITS.maxFields + 1) {
        fail(fieldPath, `too many fields: at most ${SCHEMA_LIMITS.maxFields} in a schema`);
      }
      if (fieldCount > SCHEMA_LIMITS.maxFields) break;
      if (!isValidName(name)) {
        fail(fieldPath, `field name must be 1-${SCHEMA_LIMITS.maxNameLength} characters without control characters`);
        continue;
      }
      if (FORBIDDEN_NAMES.has(name)) {
        fail(fieldPath, `"${name}" is not allowed as a field name`);
        continue;
      }
      fields.push({ name, node: parseNode((obj as Record<string, unknown>)[name], fieldPath, depth) });
    }
    return { kind: "object", fields };
  };

  const parseNode = (value: unknown, path: string, depth: number): SchemaNode => {
    if (typeof value === "string") {
      if (SCALARS.has(value)) return { kind: "scalar", type: value as ScalarType };
      if (value === "array") return { kind: "any-array" };
      if (value === "object") return { kind: "any-object" };
      fail(path, `unknown type ${JSON.stringify(value.slice(0, 40))}; expected one of ${TYPE_NAMES}`);
      return { kind: "any-object" };
    }
    if (depth >= SCHEMA_LIMITS.maxDepth) {
      fail(path, `nested too deeply: at most ${SCHEMA_LIMITS.maxDepth} levels`);
      return { kind: "any-object" };
    }
    if (Array.isArray(value)) {
      if (value.length !== 1) {
        fail(path, 'an array type must hold exactly one item type, e.g. ["string"] or [{ "name": "string" }]');
        return { kind: "any-array" };
      }
      const itemPath = `${path}/0`;
      const item = value[0];
      if (Array.isArray(item)) {
        fail(itemPath, "arrays of arrays are not supported; wrap the inner list in an object");
        return { kind: "any-array" };
      }
      return { kind: "array", items: parseNode(item, itemPath, depth + 1) };
    }
    if (typeof value === "object" && value !== null) return parseObject(value, path, depth + 1);
    fail(path, `must be a type name (${TYPE_NAMES}), a nested object or a one-item array`);
    return { kind: "any-object" };
  };

  const root = parseObject(value, basePath, 0);
  if (violations.length > 0) throw new SchemaError(violations);
  return root;
}

function isValidName(name: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the class lists the control characters a name may not contain.
  return name.length > 0 && name.length <= SCHEMA_LIMITS.maxNameLength && !/[\u0000-\u001f\u007f]/.test(name);
}

/** RFC 6901 escaping so paths stay unambiguous for names holding "/" or "~". */
export function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

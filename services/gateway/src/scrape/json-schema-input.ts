/**
 * A JSON Schema sent as `schema` (as OpenAI and Firecrawl users write them),
 * translated into the schema language where it maps, refused where it does
 * not. Without this, `{"type": "object", "properties": {...}}` reads as two
 * fields named `type` and `properties` and answers nulls.
 */
import { escapePointer, SCHEMA_LIMITS, type Violation, WinnowError } from "@winnow/platform";
import type { FieldRule } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { readRule } from "./json-schema-rules.js";

const SCALARS = new Set(["string", "number", "integer", "boolean"]);
/** A field's description is a hint, not a second task description. */
const MAX_HINT_LENGTH = 1000;

/** Keywords that say nothing about the answer's shape: read past (a field's description is also kept as its hint). */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  // Applied where it is one of the formats the engines check (json-schema-rules.ts), read past otherwise.
  "format",
  // Every field is in every answer already (null when not on the page).
  "required",
  "nullable",
]);

/** Keywords that state the answer's shape. */
const STRUCTURE = new Set(["type", "properties", "items"]);
/** Keywords read into a scalar field's rule (json-schema-rules.ts) once its type is known. */
const VALUE_RULES = new Set(["enum", "const"]);

/** Why a keyword cannot be honoured, for the ones callers reach for most. */
const REFUSALS: Record<string, string> = {
  $dynamicRef: "dynamic references are not followed; use $ref to a schema under $defs",
  anyOf: 'only the nullable form [<schema>, {"type": "null"}] is understood',
  oneOf: 'only the nullable form [<schema>, {"type": "null"}] is understood',
  allOf: "combined schemas are not understood; merge them into one",
  not: "negated schemas are not understood",
  if: "conditional schemas are not understood",
  patternProperties: "fields must be named: list them under properties",
  additionalProperties: "only true or false is understood; extra fields are never answered",
  prefixItems: "tuples are not understood; use an array of one item schema",
  items: "an array's items must be one schema (an object or a scalar type)",
  ...Object.fromEntries(
    [
      "pattern",
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "multipleOf",
      "minLength",
      "maxLength",
      "minItems",
      "maxItems",
      "uniqueItems",
      "minProperties",
      "maxProperties",
    ].map((keyword) => [keyword, "value constraints are not applied; drop it, or say it in task_description"]),
  ),
};

export function isJsonSchema(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  // A local reference is never a type name of the schema language, so a root `{"$ref": "#/..."}` is a JSON Schema.
  const refersLocally = typeof value.$ref === "string" && value.$ref.startsWith("#");
  return "$schema" in value || refersLocally || (value.type === "object" && isObject(value.properties));
}

/**
 * Schema nodes one translation reads at most: references may repeat a schema in many places, and a few nested
 * ones would otherwise expand into more fields than any schema may hold before parseSchema counts them.
 */
const MAX_TRANSLATED_NODES = 4 * SCHEMA_LIMITS.maxFields;

/**
 * The schema-language twin of a JSON Schema, and where each of its nodes came
 * from (twin pointer to original pointer, both under `basePath`) so later
 * errors can name what the caller wrote. Throws "invalid-schema" for a
 * malformed JSON Schema, "unsupported-json-schema" where it does not map.
 */
export function fromJsonSchema(
  schema: Record<string, unknown>,
  basePath = "/schema",
): {
  twin: Record<string, unknown>;
  origins: Map<string, string>;
  hints: Record<string, string>;
  rules: Record<string, FieldRule>;
} {
  const violations: Violation[] = [];
  const origins = new Map<string, string>();
  /** Each field's description, by its pointer in the twin below basePath, for the model (ExtractRequest.field_hints). */
  const hints: Record<string, string> = {};
  /** Each scalar field's enum, const and format, by its pointer in the twin below basePath (ExtractRequest.field_rules). */
  const rules: Record<string, FieldRule> = {};
  let translated = 0;
  const refuse = (path: string, description: string) => {
    if (violations.length < 50) violations.push({ path, description });
  };

  /**
   * One node: a type name, a nested object, a one-item array, as parseSchema reads them. `refs` holds the
   * references followed to reach it, so that one leading back to itself is refused rather than followed forever.
   */
  const translate = (node: unknown, from: string, to: string, refs: string[] = []): unknown => {
    origins.set(to, from);
    translated += 1;
    if (translated === MAX_TRANSLATED_NODES + 1)
      refuse(from, `its references expand to more than ${SCHEMA_LIMITS.maxFields} fields, the most a schema holds`);
    if (translated > MAX_TRANSLATED_NODES) return "object";
    if (!isObject(node)) {
      refuse(from, "must be a schema object; true and false schemas are not understood");
      return "object";
    }
    keepHint(node, from, to);
    if ("$ref" in node) {
      const target = followRef(schema, node, from, refs, refuse);
      return target
        ? translate(target.schema, `${basePath}${target.pointer}`, to, [...refs, target.pointer])
        : "object";
    }
    const inner = nullableInner(node);
    if (inner) return translate(inner.schema, `${from}/${inner.keyword}/${inner.index}`, to, refs);
    const refusedBefore = violations.length;
    for (const keyword of Object.keys(node)) {
      if (ANNOTATIONS.has(keyword) || STRUCTURE.has(keyword) || VALUE_RULES.has(keyword)) continue;
      if (keyword === "additionalProperties" && typeof node[keyword] === "boolean") continue;
      refuse(
        `${from}/${escapePointer(keyword)}`,
        `"${keyword}" is not supported: ${Object.hasOwn(REFUSALS, keyword) ? REFUSALS[keyword] : "it does not map to the schema language"}`,
      );
    }
    // A node refused for its keywords is not also told it lacks a type.
    if (violations.length > refusedBefore) return "object";
    const type = typeOf(node, from, refuse);
    if (type === undefined) return "object";
    const rule = readRule(node, type, from, refuse);
    if (rule) rules[to.slice(basePath.length)] = rule;
    if (SCALARS.has(type)) return type;
    if (type === "object") {
      if (!isObject(node.properties) || Object.keys(node.properties).length === 0) return "object";
      const fields: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(node.properties)) {
        // defineProperty: a field named "__proto__" stays a field, for parseSchema to refuse by name.
        Object.defineProperty(fields, name, {
          value: translate(field, `${from}/properties/${escapePointer(name)}`, `${to}/${escapePointer(name)}`, refs),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return fields;
    }
    if (type === "array") {
      if (node.items === undefined) return "array";
      if (Array.isArray(node.items)) {
        refuse(`${from}/items`, `"items" is not supported: ${REFUSALS.items}`);
        return "array";
      }
      return [translate(node.items, `${from}/items`, `${to}/0`, refs)];
    }
    refuse(`${from}/type`, `type "${type}" is not supported: use string, number, integer, boolean, object or array`);
    return "object";
  };

  /** The description of a field (not of the whole schema), the outermost one when a nullable wrapper has its own. */
  const keepHint = (node: Record<string, unknown>, from: string, to: string) => {
    const field = to.slice(basePath.length);
    if (field === "" || typeof node.description !== "string" || Object.hasOwn(hints, field)) return;
    if (node.description.length > MAX_HINT_LENGTH) {
      refuse(`${from}/description`, `a description of at most ${MAX_HINT_LENGTH} characters is passed to the model`);
      return;
    }
    if (node.description.trim() !== "") hints[field] = node.description.trim();
  };

  const twin = translate(schema, basePath, basePath);
  if (violations.length === 0 && !isObject(twin)) {
    refuse(
      `${basePath}/type`,
      'the top level must be {"type": "object", "properties": {...}}: the answer is an object',
    );
  }
  if (violations.length > 0) throw failure("unsupported-json-schema", violations);
  // Checked once it maps, so a keyword it cannot honour is named as such rather than as malformed.
  if (!isWellFormed(schema)) {
    const violations = (isWellFormed.errors ?? []).map((e) => ({
      path: `${basePath}${e.instancePath}`,
      description: `not a well-formed JSON Schema: ${e.message ?? "invalid"}`,
    }));
    throw failure("invalid-schema", violations);
  }
  return { twin: twin as Record<string, unknown>, origins, hints, rules };
}

/** Errors found in the twin, renamed to the pointers of the JSON Schema the caller sent. */
export function toOriginalPaths(violations: Violation[], origins: Map<string, string>): Violation[] {
  return violations.map((violation) => {
    let prefix = violation.path;
    while (prefix && !origins.has(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf("/"));
    return prefix ? { ...violation, path: origins.get(prefix)! + violation.path.slice(prefix.length) } : violation;
  });
}

/** The 2020-12 meta-schema; draft-07 schemas in the subset translated here pass it too. */
const isWellFormed = (() => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return ajv.getSchema("https://json-schema.org/draft/2020-12/schema")!;
})();

/**
 * The schema a `$ref` names within this document (`#/$defs/Name`, `#/definitions/Name` or any local JSON pointer),
 * with its pointer; undefined, refused, for a remote reference, one that names nothing, one that leads back to a
 * schema it was reached through, and keywords beside it other than annotations.
 */
function followRef(
  root: Record<string, unknown>,
  node: Record<string, unknown>,
  from: string,
  refs: string[],
  refuse: (path: string, description: string) => void,
): { schema: unknown; pointer: string } | undefined {
  const beside = Object.keys(node).filter((keyword) => keyword !== "$ref" && !ANNOTATIONS.has(keyword));
  for (const keyword of beside)
    refuse(
      `${from}/${escapePointer(keyword)}`,
      `"${keyword}" beside "$ref" is not supported: write it in the referenced schema`,
    );
  const ref = node.$ref;
  const refused = (description: string) => {
    refuse(`${from}/$ref`, description);
    return undefined;
  };
  if (typeof ref !== "string") return refused("must be a string: a reference such as #/$defs/Name");
  const quoted = JSON.stringify(ref.length > 100 ? `${ref.slice(0, 97)}...` : ref);
  if (!ref.startsWith("#"))
    return refused(`${quoted} is not followed: only references within the schema (#/$defs/Name) are`);
  const pointer = decodedFragment(ref);
  const schema = pointer === "" ? root : pointer === undefined ? undefined : resolvePointer(root, pointer);
  if (pointer === undefined || schema === undefined) return refused(`${quoted} names no schema in this document`);
  // The whole document contains every reference in it, so "#" always leads back to where it is written.
  if (pointer === "" || refs.includes(pointer))
    return refused(`${quoted} refers to a schema that contains it: its answer would be JSON without end`);
  return beside.length > 0 ? undefined : { schema, pointer };
}

/** A URI fragment's JSON pointer ("#/$defs/A%20B" → "/$defs/A B"); undefined when it is not percent-encoded right. */
function decodedFragment(ref: string): string | undefined {
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
}

/** The value at an RFC 6901 pointer, own properties only; undefined where it leads nowhere. */
function resolvePointer(root: unknown, pointer: string): unknown {
  if (!pointer.startsWith("/")) return undefined;
  let value: unknown = root;
  for (const token of pointer.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** `{"anyOf": [X, {"type": "null"}]}` (or oneOf, either order): X, with where it sits. */
function nullableInner(node: Record<string, unknown>): { schema: unknown; keyword: string; index: number } | undefined {
  for (const keyword of ["anyOf", "oneOf"]) {
    const options = node[keyword];
    if (!Array.isArray(options) || options.length !== 2) continue;
    const others = Object.keys(node).filter((k) => k !== keyword && !ANNOTATIONS.has(k));
    if (others.length > 0) continue;
    const nullIndex = options.findIndex((option) => isObject(option) && option.type === "null");
    if (nullIndex === -1) continue;
    const index = 1 - nullIndex;
    return { schema: options[index], keyword, index };
  }
  return undefined;
}

/** The node's one type besides "null", inferred from `properties` or `items` when `type` is left out. */
function typeOf(
  node: Record<string, unknown>,
  path: string,
  refuse: (path: string, description: string) => void,
): string | undefined {
  const declared = node.type;
  if (declared === undefined) {
    if ("properties" in node) return "object";
    if ("items" in node) return "array";
    refuse(path, 'states no type: add "type" (string, number, integer, boolean, object or array)');
    return undefined;
  }
  const types = (Array.isArray(declared) ? declared : [declared]).filter((t) => t !== "null");
  if (types.length !== 1 || typeof types[0] !== "string") {
    refuse(`${path}/type`, 'must name one type (and optionally "null"): a field holds one kind of value');
    return undefined;
  }
  return types[0];
}

function failure(type: "invalid-schema" | "unsupported-json-schema", violations: Violation[]): WinnowError {
  return new WinnowError(type, violations.map((v) => `${v.path}: ${v.description}`).join("; "), { violations });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

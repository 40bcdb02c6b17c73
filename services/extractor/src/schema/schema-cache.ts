import { type ObjectNode, parseSchema, SchemaError, WinnowError } from "@winnow/platform";
import { LRUCache } from "lru-cache";
import type { ResponseFormatJSONSchema } from "openai/resources/shared";
import { type FieldRules, withRules } from "./field-rules.js";
import { type FieldHints, toResponseFormat } from "./json-schema.js";

export interface CompiledSchema {
  tree: ObjectNode;
  responseFormat: ResponseFormatJSONSchema;
}

/** Far above any real schema (at most 300 fields), low enough that parsing junk stays cheap. */
const MAX_SCHEMA_JSON_CHARS = 256 * 1024;

/**
 * Parses and compiles schemas once per distinct JSON text: callers tend to
 * send the same few schemas over and over. Least recently used entries are
 * evicted past maxEntries.
 */
export class SchemaCache {
  private readonly entries: LRUCache<string, CompiledSchema>;

  constructor(maxEntries = 256) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** Throws an "invalid-schema" WinnowError naming the bad paths. */
  get(schemaJson: string, hints: FieldHints = {}, rules: FieldRules = {}): CompiledSchema {
    if (Object.keys(hints).length === 0 && Object.keys(rules).length === 0)
      return this.cached(schemaJson, () => compile(parse(schemaJson)));
    // U+0001 cannot occur in JSON text either: a schema with hints or rules is its own entry, on the same parsed tree.
    return this.cached(`${schemaJson}\u0001${JSON.stringify([hints, rules])}`, () =>
      compile(withRules(this.get(schemaJson).tree, rules), hints),
    );
  }

  /**
   * The schema narrowed to some of its top-level fields (those hybrid extraction leaves to the model), compiled once.
   */
  narrowed(schemaJson: string, fields: string[], hints: FieldHints = {}, rules: FieldRules = {}): CompiledSchema {
    // NUL cannot occur in JSON text, so these keys never collide with a whole schema's.
    return this.cached(`${schemaJson}\u0000${JSON.stringify(fields)}\u0000${JSON.stringify([hints, rules])}`, () => {
      const tree = this.get(schemaJson, {}, rules).tree;
      return compile({ ...tree, fields: tree.fields.filter((field) => fields.includes(field.name)) }, hints);
    });
  }

  private cached(key: string, build: () => CompiledSchema): CompiledSchema {
    const cached = this.entries.get(key);
    if (cached) return cached;
    const compiled = build();
    this.entries.set(key, compiled);
    return compiled;
  }
}

function compile(tree: ObjectNode, hints: FieldHints = {}): CompiledSchema {
  return { tree, responseFormat: toResponseFormat(tree, hints) };
}

function parse(schemaJson: string): ObjectNode {
  const invalid = (description: string) =>
    new WinnowError("invalid-schema", `invalid schema: ${description}`, {
      violations: [{ path: "/schema", description }],
    });
  if (schemaJson.length > MAX_SCHEMA_JSON_CHARS)
    throw invalid(`must be at most ${MAX_SCHEMA_JSON_CHARS} characters of JSON`);
  let value: unknown;
  try {
    value = JSON.parse(schemaJson);
  } catch (error) {
    throw invalid(`not valid JSON (${(error as Error).message})`);
  }
  try {
    return parseSchema(value);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new WinnowError("invalid-schema", `invalid schema: ${error.message}`, { violations: error.violations });
  }
}

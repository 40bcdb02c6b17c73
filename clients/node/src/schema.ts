/**
 * The schema language as TypeScript types, so that a schema literal gives the
 * result its type: `{ price_usd: "number" }` → `{ price_usd: number | null }`.
 */
export type ScalarTypeName = "string" | "number" | "integer" | "boolean";

export type FieldType = ScalarTypeName | "array" | "object" | Schema | readonly [ScalarTypeName | Schema];

export interface Schema {
  readonly [field: string]: FieldType;
}

type ValueOf<T> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "array"
        ? unknown[]
        : T extends "object"
          ? Record<string, unknown>
          : T extends readonly [infer Item]
            ? ValueOf<Item>[]
            : T extends Schema
              ? ScrapeResult<T>
              : never;

/** The answer to a scrape: every field of the schema, `null` where the page does not have it. */
export type ScrapeResult<S extends Schema> = { -readonly [K in keyof S]: ValueOf<S[K]> | null };

/**
 * A JSON Schema object as `schema`, recognised as the API recognises one (`$schema`, `"type": "object"` with
 * `properties`, or a root `$ref` within it) and translated where it maps: `enum`, `const`, `format` (date, date-time,
 * uri, email) and local `$ref` included; other keywords answer 422 naming them.
 */
export type JsonSchema = { readonly [keyword: string]: unknown } & (
  | { readonly $schema: string }
  | { readonly type: "object"; readonly properties: { readonly [field: string]: unknown } }
  | { readonly $ref: `#${string}` }
);

/** What a scrape with either kind of schema may be given. */
export type AnySchema = Schema | JsonSchema;

/** The answer's type: inferred from a schema-language schema; a JSON Schema's answer is an object of its properties. */
export type ResultOf<S extends AnySchema> = S extends JsonSchema
  ? Record<string, unknown>
  : S extends Schema
    ? ScrapeResult<S>
    : never;

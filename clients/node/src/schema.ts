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

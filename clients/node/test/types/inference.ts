// Compile-time checks of schema → result inference (compiled by client.test.ts; never run).
import type {
  Engine,
  Evidence,
  FieldStatus,
  PagesRead,
  ScrapeResponse,
  ScrapeResult,
  ScrapeWarning,
  Winnow,
} from "../../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

declare const client: Winnow;

export async function checks(): Promise<void> {
  const { data: product } = await client.scrape({
    url: "https://shop.example",
    schema: {
      product_name: "string",
      price_usd: "number",
      stock: "integer",
      in_stock: "boolean",
      tags: ["string"],
      extra: "object",
      anything: "array",
      seller: { name: "string", rating_1_to_5: "number" },
      reviews: [{ author: "string", stars: "integer" }],
    },
  });
  assertType<
    Equal<
      typeof product,
      {
        product_name: string | null;
        price_usd: number | null;
        stock: number | null;
        in_stock: boolean | null;
        tags: string[] | null;
        extra: Record<string, unknown> | null;
        anything: unknown[] | null;
        seller: { name: string | null; rating_1_to_5: number | null } | null;
        reviews: { author: string | null; stars: number | null }[] | null;
      }
    >
  >();
  assertType<Equal<ScrapeResult<{ a: "boolean" }>, { a: boolean | null }>>();
  // With evidence: the same inferred data and statuses, with the evidence beside them.
  const withEvidence = await client.scrape({
    url: "https://shop.example",
    schema: { price_usd: "number", tags: ["string"] },
    options: { evidence: true },
  });
  assertType<
    Equal<
      typeof withEvidence,
      {
        data: { price_usd: number | null; tags: string[] | null };
        status: Record<string, FieldStatus>;
        warnings: ScrapeWarning[];
        omitted: number;
        requestId?: string;
        engine?: Engine;
        renderPath?: "static" | "browser";
        tokens?: { input: number; output: number };
        pages?: PagesRead;
        evidence: Record<string, Evidence>;
        screenshot?: string;
        markdown?: string;
      }
    >
  >();
  const without = await client.scrape({
    url: "https://shop.example",
    schema: { price_usd: "number" },
    options: { evidence: false, render: "static" },
  });
  assertType<Equal<typeof without, ScrapeResponse<{ price_usd: "number" }>>>();
  assertType<Equal<typeof without.data, { price_usd: number | null }>>();
  await client.scrape({
    url: "https://shop.example",
    schema: { price_usd: "number" },
    options: { evidence: true, screenshot: true, waitFor: ".price", timeoutMs: 10_000 },
  });
  // @ts-expect-error: a screenshot needs the evidence envelope.
  await client.scrape({ url: "https://shop.example", schema: { price_usd: "number" }, options: { screenshot: true } });
  const account = await client.account();
  assertType<Equal<typeof account.limits.requestsPerMinute, number>>();
  // @ts-expect-error: "money" is not a type of the schema language.
  await client.scrape({ url: "https://shop.example", schema: { price: "money" } });
  // A JSON Schema (enum, format, $ref and all) is taken; its answer is an object of its properties, loosely typed.
  const fromJsonSchema = await client.scrape({
    url: "https://shop.example",
    schema: {
      type: "object",
      properties: {
        stock: { type: "string", enum: ["in stock", "sold out"] },
        released: { type: "string", format: "date" },
        seller: { $ref: "#/$defs/Party" },
      },
      $defs: { Party: { type: "object", properties: { name: { type: "string" } } } },
    },
  });
  assertType<Equal<typeof fromJsonSchema.data, Record<string, unknown>>>();
  const rootRef = await client.scrape({ url: "https://shop.example", schema: { $ref: "#/$defs/A", $defs: {} } });
  assertType<Equal<typeof rootRef.data, Record<string, unknown>>>();
}

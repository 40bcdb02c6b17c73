/**
 * Each value's status and the extractor's warnings as a plain answer carries
 * them: the Winnow-Field-Status and Winnow-Warnings response headers,
 * RFC 8941 lists (the values that are not "found", the warnings' codes).
 */
import { type Item, parseList, Token } from "structured-headers";
import type { FieldStatus, ScrapeWarning } from "./evidence.js";

export interface HeaderStatus {
  status: Record<string, FieldStatus>;
  warnings: ScrapeWarning[];
  omitted: number;
}

/**
 * The headers read into statuses by JSON pointer and warnings. A top-level field (of `fields`: the answer's, which are
 * the schema's) the header does not list is `found`, unless
 * the header was cut (`*;omitted=n`): then only the listed ones are known, and `omitted` counts the rest.
 */
export function readStatusHeaders(headers: Headers, fields: string[]): HeaderStatus {
  const listed = members(headers.get("winnow-field-status"));
  const raised = members(headers.get("winnow-warnings"));
  const omitted = listed.omitted + raised.omitted;
  const status: Record<string, FieldStatus> = {};
  if (listed.omitted === 0) for (const field of fields) status[`/${escapeToken(field)}`] = "found";
  for (const [pointer, params] of listed.items) {
    status[decodePointer(expectString(pointer, "a JSON pointer"))] = expectToken(
      params.get("status"),
      "a status",
    ) as FieldStatus;
  }
  const warnings = raised.items.map(([code, params]): ScrapeWarning => {
    const path = params.get("path");
    return {
      code: expectToken(code, "a warning code"),
      ...(path === undefined ? {} : { path: decodePointer(expectString(path, "a JSON pointer")) }),
    };
  });
  return { status, warnings, omitted };
}

/** A header's members, the last one `*;omitted=n` taken apart; empty when the header is absent. */
function members(header: string | null): { items: Item[]; omitted: number } {
  // An inner list is not an Item: the checks below refuse it.
  const items = (header === null ? [] : parseList(header)) as Item[];
  const last = items.at(-1);
  if (last && last[0] instanceof Token && last[0].toString() === "*") {
    const omitted = last[1].get("omitted");
    return { items: items.slice(0, -1), omitted: typeof omitted === "number" ? omitted : 0 };
  }
  return { items, omitted: 0 };
}

function expectString(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`expected ${what} as a string, got ${String(value)}`);
  return value;
}

function expectToken(value: unknown, what: string): string {
  if (!(value instanceof Token)) throw new TypeError(`expected ${what} as a token, got ${String(value)}`);
  return value.toString();
}

/** The gateway percent-encodes a pointer's characters outside printable ASCII (RFC 6901, section 6). */
function decodePointer(pointer: string): string {
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}

/** A field name as a JSON pointer token (RFC 6901): "~" is "~0", "/" is "~1". */
function escapeToken(field: string): string {
  return field.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Each value's status and the extractor's warnings, as the API states them:
 * in two response headers, RFC 8941 structured-field lists (compact: the
 * fields that are not "found", and the warnings' codes with their JSON
 * pointers), and in full in the evidence envelope. The body keeps the
 * schema's shape.
 */
import type { FieldStatus, Warning } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { type Item, serializeList, Token } from "structured-headers";

export const FIELD_STATUS_HEADER = "Winnow-Field-Status";
export const WARNINGS_HEADER = "Winnow-Warnings";

/**
 * A header lists at most this many members, in at most this many bytes, so that it fits the header limits of proxies
 * and clients (8 KiB and more); members left out are counted by a last member `*;omitted=<n>`, and are in the
 * evidence envelope.
 */
const MAX_MEMBERS = 32;
const MAX_BYTES = 2048;

/** `"/summary";status=needs-model, "/price";status=unverified`: the values that are not "found"; undefined when none. */
export function fieldStatusHeader(statuses: FieldStatus[]): string | undefined {
  return boundedList(
    statuses
      .filter(({ status }) => status !== "found")
      .map(({ pointer, status }): Item => [headerPointer(pointer), new Map([["status", new Token(status)]])]),
  );
}

/** `content-truncated, ungrounded;path="/price"`: each warning's code, with its pointer when it names a value. */
export function warningsHeader(warnings: Warning[]): string | undefined {
  return boundedList(
    warnings.map(
      ({ code, path }): Item => [new Token(code), new Map(path === "" ? [] : [["path", headerPointer(path)]])],
    ),
  );
}

/** The envelope's `status` (by pointer) and `warnings` (code, message, and path when there is one). */
export function statusEnvelope(
  statuses: FieldStatus[],
  warnings: Warning[],
): { status: Record<string, string>; warnings: { code: string; message: string; path?: string }[] } {
  return {
    status: Object.fromEntries(statuses.map(({ pointer, status }) => [pointer, status])),
    warnings: warnings.map(({ code, message, path }) => ({ code, message, ...(path ? { path } : {}) })),
  };
}

function boundedList(members: Item[]): string | undefined {
  if (members.length === 0) return undefined;
  const kept: Item[] = [];
  for (const member of members) {
    const next = [...kept, member];
    if (next.length > MAX_MEMBERS || serializeList(next).length > MAX_BYTES) break;
    kept.push(member);
  }
  const omitted = members.length - kept.length;
  return serializeList(omitted > 0 ? [...kept, [new Token("*"), new Map([["omitted", omitted]])]] : kept);
}

/**
 * A JSON pointer as an sf-string, which holds printable ASCII only: written as in a URI fragment (RFC 6901, section
 * 6), its other characters percent-encoded as UTF-8 ("/größe" is "/gr%C3%B6%C3%9Fe").
 */
function headerPointer(pointer: string): string {
  // Bytes of UTF-8, not encodeURIComponent: a key may hold a lone surrogate, which that throws on.
  return pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]/gu, (char) =>
    [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

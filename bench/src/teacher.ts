/**
 * The templates benchmark's teacher: the test suite's scripted
 * OpenAI-compatible model (test/support/fake-llm.ts) answering from a
 * case's labels, for each field the request's schema asks for, the labelled
 * value only when the text it was sent shows it (else null), as the
 * corpus's oracle model does. A perfect reader of what it is shown.
 */

import { type FakeLlm, startFakeLlm } from "@winnow/test-support/fake-llm";
import { decodeHTML } from "entities";
import type { Case } from "./corpus.js";

export interface Teacher extends FakeLlm {
  /** The case whose labels the next requests are answered from. */
  teach(item: Case): void;
}

export async function startTeacher(): Promise<Teacher> {
  let current: Case | undefined;
  const llm = await startFakeLlm((body) => {
    if (!current) return {};
    const text = normalized(body.messages.map((message) => message.content).join(" "));
    const asked = Object.keys((body.response_format?.json_schema?.schema.properties ?? {}) as Record<string, unknown>);
    return Object.fromEntries(asked.map((field) => [field, shown(current!.expected[field] ?? null, text)]));
  });
  return { ...llm, teach: (item) => (current = item) };
}

/**
 * The labelled value reduced to what the text shows: an alternative it shows, the list items it shows, a record with
 * the fields it shows (when it shows one that is not a boolean), or null.
 */
function shown(value: unknown, text: string): unknown {
  if (value && typeof value === "object" && "$any" in value)
    return (value.$any as unknown[]).map((alternative) => shown(alternative, text)).find((v) => v !== null) ?? null;
  if (Array.isArray(value)) {
    const items = value.map((item) => shown(item, text)).filter((item) => item !== null);
    return items.length > 0 ? items : null;
  }
  if (value && typeof value === "object") {
    const record = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, shown(field, text)]));
    return Object.values(record).some((field) => field !== null && typeof field !== "boolean") ? record : null;
  }
  return isShown(value, text) ? value : null;
}

function isShown(value: unknown, text: string): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === "boolean") return true;
  if (typeof value === "number") {
    const forms = [
      String(value),
      value.toFixed(2),
      value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
      value.toLocaleString("en-US"),
    ];
    return forms.some((form) => text.includes(form));
  }
  const wanted = normalized(String(value));
  return wanted !== "" && text.includes(wanted);
}

function normalized(text: string): string {
  return decodeHTML(text)
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[*_#|`>[\]()\\]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

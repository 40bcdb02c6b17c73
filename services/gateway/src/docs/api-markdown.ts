/** The generated API tables in docs/api.md (checked by a test, rewritten by `npm run docs`). */
import { PROBLEM_TYPES, type ProblemSlug } from "@winnow/platform";
import { scrapeRequestSchema } from "../scrape/scrape-request.js";
import { FIELD_STATUSES, problemsByStatus, SUCCESS_HEADERS } from "./openapi.js";

const API_TABLES = {
  "request-fields": requestFieldsTable,
  "response-headers": responseHeadersTable,
  "field-status": fieldStatusTable,
  errors: errorsTable,
} as const;

function requestFieldsTable(): string {
  const required = new Set<string>(scrapeRequestSchema.required);
  const rows = Object.entries(scrapeRequestSchema.properties).map(([name, schema]) => {
    const s = schema as { type?: string; description?: string; $ref?: string };
    const type = s.type ?? "object";
    const description = s.description ?? scrapeRequestSchema.$defs.Schema.description;
    return `| \`${name}\` | ${type} | ${required.has(name) ? "required" : "optional"} | ${description} |`;
  });
  return ["| Field | Type | | Meaning |", "|---|---|---|---|", ...rows].join("\n");
}

function responseHeadersTable(): string {
  return ["| Header | |", "|---|---|", ...SUCCESS_HEADERS.map((h) => `| \`${h.name}\` | ${h.description} |`)].join(
    "\n",
  );
}

function fieldStatusTable(): string {
  return ["| Status | Meaning |", "|---|---|", ...FIELD_STATUSES.map((s) => `| \`${s.status}\` | ${s.meaning} |`)].join(
    "\n",
  );
}

function errorsTable(): string {
  const rows = [...problemsByStatus()].flatMap(([status, slugs]) =>
    slugs.map((slug: ProblemSlug) => {
      const p = PROBLEM_TYPES[slug];
      return `| \`${slug}\` | ${status} | ${p.retryable ? "yes" : "no"} | ${p.when} |`;
    }),
  );
  return [
    "| `type` (after `https://winnow.dev/problems/`) | Status | Retry? | When |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** The document (docs/api.md) with every generated table between its `<!-- generated:NAME -->` markers replaced. */
export function withGeneratedTables(markdown: string): string {
  let text = markdown;
  for (const [name, render] of Object.entries(API_TABLES)) {
    const pattern = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!pattern.test(text)) throw new Error(`docs/api.md lacks the markers for the ${name} table`);
    text = text.replace(pattern, (_m, open: string, close: string) => `${open}\n${render()}\n${close}`);
  }
  return text;
}

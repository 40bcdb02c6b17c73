import { Ajv, type ErrorObject } from "ajv";
import { parseSchema, SchemaError, WinnowError, type ObjectNode } from "@winnow/platform";

/** The request body's JSON Schema; the schema language itself is checked by parseSchema, which names paths. */
export const scrapeRequestSchema = {
  type: "object",
  required: ["url", "schema"],
  additionalProperties: false,
  properties: {
    url: { type: "string", minLength: 1, maxLength: 8192, description: "The http(s) URL of the page to scrape." },
    schema: { type: "object", description: "Field names mapped to types, nested objects or one-item arrays." },
    task_description: { type: "string", maxLength: 20_000, description: "Extra instructions for the AI model." },
  },
} as const;

export interface ScrapeRequest {
  url: string;
  schema: ObjectNode;
  /** The schema as sent, re-serialized for the extractor. */
  schemaJson: string;
  taskDescription: string;
}

const validateEnvelope = new Ajv({ allErrors: true }).compile(scrapeRequestSchema);

/** Validates a parsed body; throws a WinnowError that says what is wrong and where. */
export function parseScrapeRequest(body: unknown): ScrapeRequest {
  if (!validateEnvelope(body)) {
    const violations = (validateEnvelope.errors ?? []).map(describeAjvError);
    throw new WinnowError("invalid-request", violations.map((v) => `${v.path}: ${v.description}`).join("; "), { violations });
  }
  const { url, schema, task_description } = body as { url: string; schema: unknown; task_description?: string };
  let tree: ObjectNode;
  try {
    tree = parseSchema(schema);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new WinnowError("invalid-schema", error.message, { violations: error.violations });
  }
  return { url: checkUrl(url), schema: tree, schemaJson: JSON.stringify(schema), taskDescription: task_description ?? "" };
}

/**
 * Refuses what is never fetchable before any backend is asked: the renderer
 * checks again (it alone can resolve addresses), but a wrong scheme or
 * embedded credentials are the caller's mistake and cost nothing to spot here.
 */
function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WinnowError("invalid-request", "url is not an absolute URL", { violations: [{ path: "/url", description: "must be an absolute http or https URL" }] });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WinnowError("url-not-allowed", `the ${url.protocol.slice(0, -1)} scheme is not allowed; use http or https`, {
      violations: [{ path: "/url", description: "scheme must be http or https" }],
    });
  }
  if (url.username || url.password) {
    throw new WinnowError("url-not-allowed", "URLs with embedded credentials are not allowed", {
      violations: [{ path: "/url", description: "must not contain a user name or password" }],
    });
  }
  url.hash = "";
  return url.href;
}

function describeAjvError(error: ErrorObject): { path: string; description: string } {
  if (error.keyword === "required") {
    return { path: `${error.instancePath}/${String(error.params.missingProperty)}`, description: "is required" };
  }
  if (error.keyword === "additionalProperties") {
    return { path: `${error.instancePath}/${String(error.params.additionalProperty)}`, description: "is not a known field" };
  }
  return { path: error.instancePath || "/", description: error.message ?? "is invalid" };
}

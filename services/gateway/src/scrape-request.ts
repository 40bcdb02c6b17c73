import { Ajv, type ErrorObject } from "ajv";
import { parseSchema, SchemaError, WinnowError, type ObjectNode } from "@winnow/platform";
import { RenderMode, type RenderOptions } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";

/** The request body's JSON Schema; the schema language itself is checked by parseSchema, which names paths. */
export const scrapeRequestSchema = {
  type: "object",
  required: ["url", "schema"],
  additionalProperties: false,
  properties: {
    url: { type: "string", minLength: 1, maxLength: 8192, description: "The http(s) URL of the page to scrape." },
    schema: { type: "object", description: "Field names mapped to types, nested objects or one-item arrays." },
    task_description: { type: "string", maxLength: 20_000, description: "Extra instructions for the AI model." },
    options: {
      type: "object",
      additionalProperties: false,
      description: "How the page is rendered; every field is optional.",
      properties: {
        render: { enum: ["auto", "static", "browser"], description: "auto: fetch statically, use the browser only when the page needs it." },
        timeout_ms: { type: "integer", minimum: 1, maximum: 120_000, description: "Upper bound for rendering the page." },
        wait_for: { type: "string", minLength: 1, maxLength: 1024, description: "CSS selector to wait for (needs the browser)." },
      },
    },
  },
} as const;

const RENDER_MODES = { auto: RenderMode.RENDER_MODE_AUTO, static: RenderMode.RENDER_MODE_STATIC, browser: RenderMode.RENDER_MODE_BROWSER };

interface ScrapeOptions {
  render?: keyof typeof RENDER_MODES;
  timeout_ms?: number;
  wait_for?: string;
}

export interface ScrapeRequest {
  url: string;
  schema: ObjectNode;
  /** The schema as sent, re-serialized for the extractor. */
  schemaJson: string;
  taskDescription: string;
  /** What the renderer is asked for; zero values mean "the renderer's default". */
  renderOptions: RenderOptions;
}

const validateEnvelope = new Ajv({ allErrors: true }).compile(scrapeRequestSchema);

/** Validates a parsed body; throws a WinnowError that says what is wrong and where. */
export function parseScrapeRequest(body: unknown): ScrapeRequest {
  if (!validateEnvelope(body)) {
    const violations = (validateEnvelope.errors ?? []).map(describeAjvError);
    throw new WinnowError("invalid-request", violations.map((v) => `${v.path}: ${v.description}`).join("; "), { violations });
  }
  const { url, schema, task_description, options = {} } = body as {
    url: string;
    schema: unknown;
    task_description?: string;
    options?: ScrapeOptions;
  };
  let tree: ObjectNode;
  try {
    tree = parseSchema(schema);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new WinnowError("invalid-schema", error.message, { violations: error.violations });
  }
  return {
    url: checkUrl(url),
    schema: tree,
    schemaJson: JSON.stringify(schema),
    taskDescription: task_description ?? "",
    renderOptions: {
      mode: options.render ? RENDER_MODES[options.render] : RenderMode.RENDER_MODE_UNSPECIFIED,
      timeoutMs: options.timeout_ms ?? 0,
      waitFor: options.wait_for ?? "",
    },
  };
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

import { parseTargetUrl, type Violation, WinnowError } from "@winnow/platform";
import { RenderMode, type RenderOptions } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { parseScrapeRequest, type ScrapeRequest } from "../scrape/scrape-request.js";

/** Firecrawl's API version: v1 names formats by string (JSON options beside), v2 by object. */
export type FirecrawlVersion = "v1" | "v2";

/** What a Firecrawl scrape asks of Winnow: the page, and the schema's answer and/or the markdown. */
export interface FirecrawlScrape {
  url: string;
  renderOptions: RenderOptions;
  maxAgeSeconds: number | undefined;
  /** With a JSON format: the Winnow scrape that fills its schema. */
  json: ScrapeRequest | undefined;
  markdown: boolean;
}

/** Winnow's render bound (options.timeout_ms). */
const MAX_TIMEOUT_MS = 120_000;
/** A year, as options.max_age. */
const MAX_AGE_LIMIT_MS = 31_536_000_000;
/** Fields a client sends about itself (the SDK's origin), not about the page. */
const CLIENT_FIELDS = new Set(["origin", "integration"]);
const OPTIONS = new Set(["url", "formats", "jsonOptions", "onlyMainContent", "waitFor", "timeout", "maxAge"]);

/**
 * Reads a Firecrawl scrape body: the options Winnow does mean the same thing
 * by, and an invalid-request naming every other option and format (actions,
 * screenshots, location, ...), never one silently ignored.
 */
export function parseFirecrawlScrape(sent: unknown, version: FirecrawlVersion): FirecrawlScrape {
  if (typeof sent !== "object" || sent === null || Array.isArray(sent)) {
    throw refuse([{ path: "/", description: "must be a JSON object" }]);
  }
  const body = sent as Record<string, unknown>;
  const violations: Violation[] = [];
  for (const key of Object.keys(body)) {
    if (!OPTIONS.has(key) && !CLIENT_FIELDS.has(key))
      violations.push({ path: `/${key}`, description: `${key} is not supported by Winnow` });
  }
  if (typeof body.url !== "string" || body.url === "") violations.push({ path: "/url", description: "is required" });
  const formats = readFormats(body, version, violations);
  if (body.onlyMainContent === false) {
    violations.push({
      path: "/onlyMainContent",
      description: "onlyMainContent: false is not supported by Winnow: markdown is always the main content",
    });
  }
  const timeoutMs = readMilliseconds(body, "timeout", MAX_TIMEOUT_MS, violations);
  const waitForMs = readMilliseconds(body, "waitFor", MAX_TIMEOUT_MS, violations);
  const maxAgeMs = readMilliseconds(body, "maxAge", MAX_AGE_LIMIT_MS, violations);
  if (violations.length > 0) throw refuse(violations);

  const url = parseTargetUrl(body.url as string).href;
  const renderOptions: RenderOptions = {
    // Winnow waits for the page to settle rather than for a fixed time: a wait asks for the browser, whose settling
    // runs the page's scripts; the time itself is not slept.
    mode: waitForMs ? RenderMode.RENDER_MODE_BROWSER : RenderMode.RENDER_MODE_UNSPECIFIED,
    timeoutMs: timeoutMs ?? 0,
    waitFor: "",
    screenshot: false,
    outline: [],
  };
  const maxAgeSeconds = maxAgeMs === undefined ? undefined : Math.floor(maxAgeMs / 1000);
  const json = formats.json && { ...jsonScrape(url, formats.json), renderOptions, maxAgeSeconds };
  return { url, renderOptions, maxAgeSeconds, json, markdown: formats.markdown };
}

interface JsonFormat {
  schema: unknown;
  prompt: string | undefined;
  /** Where the format (holding `schema`) is in the body, for the errors found in its schema. */
  path: string;
}

/** The JSON format as POST /scrape reads a schema and task (a JSON Schema translated); errors name the body's path. */
function jsonScrape(url: string, format: JsonFormat): ScrapeRequest {
  try {
    return parseScrapeRequest({
      url,
      schema: format.schema,
      ...(format.prompt ? { task_description: format.prompt } : {}),
    });
  } catch (error) {
    if (!(error instanceof WinnowError)) throw error;
    const at = (path: string) => (path.startsWith("/schema") ? `${format.path}${path}` : path);
    const violations = error.violations.map((v) => ({ ...v, path: at(v.path) }));
    throw new WinnowError(error.type, violations.map((v) => `${v.path}: ${v.description}`).join("; "), {
      violations,
    });
  }
}

interface Formats {
  json: JsonFormat | undefined;
  markdown: boolean;
}

/** The formats asked for (markdown when none is named, as Firecrawl does); any other format is a violation. */
function readFormats(body: Record<string, unknown>, version: FirecrawlVersion, violations: Violation[]): Formats {
  const sent = body.formats ?? ["markdown"];
  const formats: Formats = { json: undefined, markdown: false };
  if (!Array.isArray(sent)) {
    violations.push({ path: "/formats", description: "must be an array" });
    return formats;
  }
  if (version === "v2" && "jsonOptions" in body)
    violations.push({ path: "/jsonOptions", description: 'is v1\'s; v2 takes {"type": "json", "schema", "prompt"}' });
  sent.forEach((format: unknown, index) => {
    const path = `/formats/${index}`;
    const type = typeof format === "string" ? format : (format as { type?: unknown } | null)?.type;
    if (type === "markdown") formats.markdown = true;
    else if (type === "json" && version === "v1") {
      if (typeof format !== "string") violations.push({ path, description: 'v1 names formats by string: "json"' });
      else formats.json = jsonOptions(body.jsonOptions, "/jsonOptions", violations);
    } else if (type === "json") {
      if (typeof format === "object") formats.json = jsonOptions(format, path, violations);
      else violations.push({ path, description: 'v2 names the JSON format by object: {"type": "json", "schema"}' });
    } else {
      violations.push({ path, description: `format ${JSON.stringify(type ?? format)} is not supported by Winnow` });
    }
  });
  if (!formats.json && "jsonOptions" in body && version === "v1")
    violations.push({ path: "/jsonOptions", description: 'needs "json" in formats' });
  return formats;
}

/** A JSON format's schema (required: Winnow fills a schema, a prompt alone has no shape to answer in) and prompt. */
function jsonOptions(options: unknown, path: string, violations: Violation[]): Formats["json"] {
  const { schema, prompt, ...rest } = (typeof options === "object" && options !== null ? options : {}) as Record<
    string,
    unknown
  >;
  for (const key of Object.keys(rest))
    if (key !== "type") violations.push({ path: `${path}/${key}`, description: `${key} is not supported by Winnow` });
  if (typeof schema !== "object" || schema === null) {
    violations.push({
      path: `${path}/schema`,
      description: "is required: Winnow answers in a schema's shape (a prompt alone goes with one)",
    });
  }
  if (prompt !== undefined && typeof prompt !== "string")
    violations.push({ path: `${path}/prompt`, description: "must be a string" });
  return { schema, prompt: typeof prompt === "string" ? prompt : undefined, path };
}

function readMilliseconds(
  body: Record<string, unknown>,
  key: string,
  max: number,
  violations: Violation[],
): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > max) {
    violations.push({ path: `/${key}`, description: `must be an integer number of milliseconds, 0 to ${max}` });
    return undefined;
  }
  return value;
}

function refuse(violations: Violation[]): WinnowError {
  return new WinnowError("invalid-request", violations.map((v) => `${v.path}: ${v.description}`).join("; "), {
    violations,
  });
}

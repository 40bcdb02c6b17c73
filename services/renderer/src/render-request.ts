import { WinnowError, type CallContext } from "@winnow/platform";
import { RenderMode, type RenderRequest } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { RenderJob } from "./render.js";

const MAX_URL_LENGTH = 8192;
const MAX_SELECTOR_LENGTH = 1024;
const BROWSER_MODES = new Set<number>([RenderMode.RENDER_MODE_UNSPECIFIED, RenderMode.RENDER_MODE_AUTO, RenderMode.RENDER_MODE_BROWSER]);

/**
 * Validates a Render request and fixes its time budget: the smallest of the
 * caller's timeout_ms, the service's limit and what is left of the gRPC deadline.
 */
export function toRenderJob(request: RenderRequest, context: Pick<CallContext, "deadline" | "signal">, maxTimeoutMs: number): RenderJob {
  const options = request.options;
  const mode = options?.mode ?? RenderMode.RENDER_MODE_UNSPECIFIED;
  if (mode === RenderMode.RENDER_MODE_STATIC) {
    throw invalid("/options/mode", "static rendering is not available in this renderer version");
  }
  if (!BROWSER_MODES.has(mode)) throw invalid("/options/mode", `unknown render mode ${mode}`);

  if (!request.url) throw invalid("/url", "a URL is required");
  if (request.url.length > MAX_URL_LENGTH) throw invalid("/url", `the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw invalid("/url", "not a valid absolute URL");
  }

  const waitFor = options?.waitFor.trim() ?? "";
  if (waitFor.length > MAX_SELECTOR_LENGTH) {
    throw invalid("/options/wait_for", `the selector is longer than ${MAX_SELECTOR_LENGTH} characters`);
  }

  const leftOfDeadline = context.deadline ? context.deadline.getTime() - Date.now() : Infinity;
  const timeoutMs = Math.min(options?.timeoutMs || Infinity, maxTimeoutMs, leftOfDeadline);
  if (timeoutMs <= 0) throw new WinnowError("target-timeout", "the deadline passed before the render could start");

  return { url, waitFor, timeoutMs, signal: context.signal };
}

function invalid(path: string, description: string): WinnowError {
  return new WinnowError("invalid-request", description, { violations: [{ path, description }] });
}

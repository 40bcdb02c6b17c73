import { type CallContext, parseTargetUrl, WinnowError } from "@winnow/platform";
import { RenderMode, type RenderRequest } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";

export type RenderChoice = "auto" | "static" | "browser";

/** One validated render: what to load, how, what to wait for, and how long it may take in all. */
export interface RenderJob {
  url: URL;
  mode: RenderChoice;
  /** CSS selector to wait for; empty for none. */
  waitFor: string;
  /** Take a screenshot, with these elements outlined. */
  screenshot?: boolean;
  outline?: string[];
  timeoutMs: number;
  /** Whom the render is for: browser pages are shared fairly between accounts (page-slots.ts); unset: anonymous. */
  account?: string;
  /**
   * The caller's deadline set timeoutMs (not its own timeout or the service's limit): running out of it is the
   * request's deadline, not the page's slowness.
   */
  deadlineBound?: boolean;
  /** Aborted when the caller goes away. */
  signal: AbortSignal;
}

const MAX_SELECTOR_LENGTH = 1024;
/** Elements outlined in one screenshot: every value of a large schema, not more. */
const MAX_OUTLINES = 500;
const MODES = new Map<number, RenderChoice>([
  [RenderMode.RENDER_MODE_UNSPECIFIED, "auto"],
  [RenderMode.RENDER_MODE_AUTO, "auto"],
  [RenderMode.RENDER_MODE_STATIC, "static"],
  [RenderMode.RENDER_MODE_BROWSER, "browser"],
]);

/**
 * Validates a Render request and fixes its time budget: the smallest of the
 * caller's timeout_ms, the service's limit and what is left of the gRPC deadline.
 */
export function toRenderJob(
  request: RenderRequest,
  context: Pick<CallContext, "deadline" | "signal">,
  maxTimeoutMs: number,
): RenderJob {
  const options = request.options;
  const mode = MODES.get(options?.mode ?? RenderMode.RENDER_MODE_UNSPECIFIED);
  if (!mode) throw invalid("/options/mode", `unknown render mode ${options?.mode}`);

  const url = parseTargetUrl(request.url);

  const waitFor = options?.waitFor.trim() ?? "";
  if (waitFor.length > MAX_SELECTOR_LENGTH) {
    throw invalid("/options/wait_for", `the selector is longer than ${MAX_SELECTOR_LENGTH} characters`);
  }

  if (waitFor && mode === "static") {
    throw invalid("/options/wait_for", "wait_for needs the browser; use the auto or browser render mode");
  }

  const screenshot = options?.screenshot ?? false;
  if (screenshot && mode === "static")
    throw invalid("/options/screenshot", "a screenshot needs the browser; use the auto or browser render mode");
  const outline = options?.outline ?? [];
  if (outline.length > MAX_OUTLINES || outline.some((selector) => selector.length > MAX_SELECTOR_LENGTH)) {
    throw invalid("/options/outline", `at most ${MAX_OUTLINES} selectors of at most ${MAX_SELECTOR_LENGTH} characters`);
  }

  const leftOfDeadline = context.deadline ? context.deadline.getTime() - Date.now() : Infinity;
  const timeoutMs = Math.min(options?.timeoutMs || Infinity, maxTimeoutMs, leftOfDeadline);
  if (timeoutMs <= 0) throw new WinnowError("target-timeout", "the deadline passed before the render could start");

  return {
    url,
    mode,
    waitFor,
    screenshot,
    outline,
    timeoutMs,
    account: request.accountId,
    deadlineBound: timeoutMs === leftOfDeadline,
    signal: context.signal,
  };
}

function invalid(path: string, description: string): WinnowError {
  return new WinnowError("invalid-request", description, { violations: [{ path, description }] });
}

import type { RenderResponse } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import type { Response } from "express";

/** The page's time ran out after its HTML arrived: the data was read from the page as it was then, not settled. */
const RENDER_INCOMPLETE = "render-incomplete";

/** The response header that lists an answer's warnings, as a structured-field list of tokens (RFC 8941). */
const WARNINGS_HEADER = "Winnow-Warnings";

/** What the render says about the page the answer was read from. */
function renderWarnings(page: Pick<RenderResponse, "incomplete">): string[] {
  return page.incomplete ? [RENDER_INCOMPLETE] : [];
}

/** Adds the render's warnings to the answer's Winnow-Warnings, beside any others already there. */
export function appendRenderWarnings(res: Response, page: Pick<RenderResponse, "incomplete">): void {
  const warnings = renderWarnings(page);
  if (warnings.length > 0) res.append(WARNINGS_HEADER, warnings.join(", "));
}

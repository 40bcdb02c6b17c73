import { WinnowError } from "@winnow/platform";
import { errors } from "playwright-core";
import { overloaded } from "./overloaded.js";

/** Chromium refusals that mean the URL itself is off limits (our guard, or ports Chromium never dials). */
const NOT_ALLOWED_NET_ERRORS = new Set(["ERR_ACCESS_DENIED", "ERR_UNSAFE_PORT", "ERR_UNSAFE_REDIRECT"]);

export interface RenderFailureState {
  /** The render's time budget ran out or the caller went away. */
  aborted: boolean;
  browserConnected: boolean;
  timeoutMs: number;
}

/** Maps what Playwright threw during a render to the problem the caller should see. */
export function toRenderError(error: unknown, state: RenderFailureState): unknown {
  if (error instanceof WinnowError) return error;
  if (state.aborted || error instanceof errors.TimeoutError) {
    return new WinnowError("target-timeout", `the page did not load within ${state.timeoutMs} ms`, { cause: error });
  }
  const message = error instanceof Error ? error.message : "";
  if (message.includes("Download is starting")) {
    return new WinnowError("unsupported-content", "the target answered with a download, not a web page", {
      cause: error,
    });
  }
  const netError = /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  if (netError && NOT_ALLOWED_NET_ERRORS.has(netError)) {
    return new WinnowError("url-not-allowed", `the browser refused the URL (${netError})`, { cause: error });
  }
  if (netError) return new WinnowError("target-unreachable", `could not load the page (${netError})`, { cause: error });
  // Chromium kills a tab whose page takes too much memory (or hits a browser bug); the browser itself lives on.
  if (/\b(Page|Target) crashed\b/i.test(message)) {
    return new WinnowError("page-too-large", "the page crashed the browser tab (it used too much memory)", {
      cause: error,
    });
  }
  if (!state.browserConnected) {
    return overloaded("the browser stopped during the render", error);
  }
  return error;
}

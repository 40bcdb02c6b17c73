import { WinnowError } from "@winnow/platform";

/** How long a caller turned away is told to wait before retrying. */
const RETRY_AFTER_MS = 1000;

/** "overloaded": this renderer cannot take the render now; another replica, or a retry shortly, may. */
export function overloaded(message: string, cause?: unknown): WinnowError {
  return new WinnowError("overloaded", message, { retryAfterMs: RETRY_AFTER_MS, cause });
}

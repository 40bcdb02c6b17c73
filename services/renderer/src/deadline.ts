/**
 * A signal that aborts when the caller's does or when `ms` have passed. Held
 * by a plain timer, so it cannot be collected before it fires (as composed
 * AbortSignal.any/timeout signals can be under GC pressure). Call dispose when done.
 */
export function deadlineSignal(callerSignal: AbortSignal, ms: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, ms);
  if (callerSignal.aborted) abort();
  else callerSignal.addEventListener("abort", abort, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      callerSignal.removeEventListener("abort", abort);
    },
  };
}

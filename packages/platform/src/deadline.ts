export interface DeadlineBounds {
  /** The caller's signal: the deadline's signal aborts when it does. */
  signal?: AbortSignal;
  /** An absolute moment, normally the deadline the request arrived with. */
  deadline?: Date;
  /** A time limit from now. With `deadline` too, whichever comes first. */
  ms?: number;
}

export interface Deadline {
  /** Aborts when the caller's signal does or when the time runs out (never, with neither). */
  readonly signal: AbortSignal;
  /** Stops the timer and lets go of the caller's signal; call it when the work is done. */
  dispose(): void;
}

/** setTimeout fires at once for longer delays; a deadline further away than ~24.8 days waits that long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The one way to time out: a signal that aborts when the caller's does or
 * when the deadline or `ms` pass, whichever comes first. Held by a plain
 * timer, so it cannot be collected before it fires (as composed
 * AbortSignal.any/timeout signals can be under GC pressure). The timer keeps
 * the process alive until it fires: call dispose when done.
 */
export function deadlineSignal({ signal: callerSignal, deadline, ms }: DeadlineBounds): Deadline {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const remaining = Math.min(ms ?? Infinity, deadline ? deadline.getTime() - Date.now() : Infinity);
  let timer: NodeJS.Timeout | undefined;
  if (remaining <= 0 || callerSignal?.aborted) abort();
  else {
    if (Number.isFinite(remaining)) timer = setTimeout(abort, Math.min(remaining, MAX_TIMER_MS));
    callerSignal?.addEventListener("abort", abort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", abort);
    },
  };
}

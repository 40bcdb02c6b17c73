import type { Logger } from "pino";

type Hook = () => Promise<void> | void;

/**
 * Runs the given shutdown steps once on SIGTERM or SIGINT, or when the
 * supervisor that started this process is gone (supervisorGone), then flushes
 * telemetry and exits. Later signals are ignored: Ctrl-C in a terminal
 * reaches a service and its supervisor's SIGTERM follows, and the shutdown
 * steps are bounded by their own grace period anyway.
 */
export function onShutdownSignal(logger: Logger, shutdown: Hook): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals | "supervisor gone") => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    void (async () => {
      let code = 0;
      try {
        await shutdown();
      } catch (error) {
        code = 1;
        logger.error({ err: error }, "shutdown failed");
      }
      await flushTelemetry();
      logger.info("stopped");
      process.exit(code);
    })();
  };
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
  supervisorGone(() => handler("supervisor gone"));
}

/**
 * Calls `then` once the process that started this one over an IPC channel (a
 * supervisor: scripts' stack.ts, a test) is gone, however it ended: a process
 * group of its own keeps this process out of its supervisor's signals, and a
 * supervisor killed outright (SIGKILL, a closed terminal, a CI timeout) sends
 * none, but the channel closes with it. A no-op for a process started without
 * one.
 */
export function supervisorGone(then: () => void): void {
  // Undefined without a channel; null once it has closed (before this was called).
  if (process.channel === undefined) return;
  // Once nobody reads them, writing to the supervisor's pipes fails (EPIPE): the shutdown must still run to its end.
  const onGone = () => {
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
    then();
  };
  if (process.connected) process.once("disconnect", onGone);
  else onGone();
}

/** Flushes spans when the telemetry preload is loaded; a no-op otherwise. */
export async function flushTelemetry(): Promise<void> {
  const hook = (globalThis as Record<symbol, unknown>)[Symbol.for("winnow.telemetry.shutdown")];
  if (typeof hook === "function") await Promise.resolve(hook()).catch(() => undefined);
}

/** A reason a process cannot start that its operator can fix (a port or directory in use): said in one line, no stack. */
export class StartupError extends Error {
  override name = "StartupError";
}

/** Logs unexpected failures instead of dying silently; a crashed process is restarted by its supervisor. */
export function logFatalErrors(logger: Logger): void {
  const die = (error: unknown, what: string) => {
    if (error instanceof StartupError) logger.fatal(`cannot start: ${error.message}`);
    else logger.fatal({ err: error }, what);
    process.exit(1);
  };
  process.on("uncaughtException", (error) => die(error, "uncaught exception"));
  process.on("unhandledRejection", (reason) => die(reason, "unhandled rejection"));
}

/** The message a supervised service sends its supervisor once its server is bound. */
export const LISTENING_MESSAGE = "winnow:listening";

/**
 * Tells the supervisor that started this process (scripts' stack.ts, which
 * opens an IPC channel and sets WINNOW_SUPERVISOR=ipc) that its server is
 * bound, so readiness checks on its port are known to reach this process
 * rather than another one that held the port first. A no-op otherwise.
 */
export function reportListening(): void {
  if (process.env.WINNOW_SUPERVISOR !== "ipc" || !process.send) return;
  process.send(LISTENING_MESSAGE);
  // The channel is for this one message; it must never be what keeps the process alive.
  process.channel?.unref();
}

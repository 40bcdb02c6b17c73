import type { Logger } from "pino";

type Hook = () => Promise<void> | void;

/**
 * Runs the given shutdown steps once on SIGTERM or SIGINT, then flushes
 * telemetry and exits. Later signals are ignored: Ctrl-C in a terminal
 * reaches a service and its supervisor's SIGTERM follows, and the shutdown
 * steps are bounded by their own grace period anyway.
 */
export function onShutdownSignal(logger: Logger, shutdown: Hook): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
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
}

/** Flushes spans when the telemetry preload is loaded; a no-op otherwise. */
export async function flushTelemetry(): Promise<void> {
  const hook = (globalThis as Record<symbol, unknown>)[Symbol.for("winnow.telemetry.shutdown")];
  if (typeof hook === "function") await Promise.resolve(hook()).catch(() => undefined);
}

/** Logs unexpected failures instead of dying silently; a crashed process is restarted by its supervisor. */
export function logFatalErrors(logger: Logger): void {
  process.on("uncaughtException", (error) => {
    logger.fatal({ err: error }, "uncaught exception");
    process.exit(1);
  });
  process.on("unhandledRejection", (reason) => {
    logger.fatal({ err: reason }, "unhandled rejection");
    process.exit(1);
  });
}

import {
  createLogger,
  loadConfigOrExit,
  logFatalErrors,
  onShutdownSignal,
  reportListening,
  serveMetrics,
  startGrpcServer,
  warnOnUnsupportedNode,
} from "@winnow/platform";
import { rendererConfigShape } from "./config.js";
import { rendererServiceBinding } from "./renderer-service.js";
import { createRendering } from "./rendering.js";

const config = loadConfigOrExit(rendererConfigShape);
const logger = createLogger("renderer", config.LOG_LEVEL);
logFatalErrors(logger);
warnOnUnsupportedNode((warning) => logger.warn(warning));
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const { renderer, browser, close } = await createRendering(config, logger);

// Health answers NOT_SERVING from the moment the port is open until the browser is up.
const server = await startGrpcServer({
  host: config.GRPC_HOST,
  port: config.GRPC_PORT,
  maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
  maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
  logger,
  callers: { service: config.WINNOW_SERVICE_TOKEN.accepted },
  services: [
    rendererServiceBinding({
      logger,
      renderer,
      renderTimeoutMs: config.RENDER_TIMEOUT_MS,
      pageSigningKey: config.WINNOW_PAGE_SIGNING_KEY?.current,
    }),
  ],
});
reportListening();
onShutdownSignal(logger, async () => {
  // NOT_SERVING at once; in-flight renders finish (within the grace period) before the browser closes.
  await server.shutdown(config.SHUTDOWN_GRACE_MS);
  await close();
});
if (browser) {
  browser.onReadyChange((ready) => server.setReady(ready));
  try {
    await browser.start();
  } catch (error) {
    logger.fatal({ err: error }, "the browser could not start");
    process.exit(1);
  }
} else {
  server.setReady(true);
}

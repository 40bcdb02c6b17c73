import { createLogger, loadConfigOrExit, logFatalErrors, onShutdownSignal, serveMetrics, startGrpcServer } from "@winnow/platform";
import { RendererServiceService } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { rendererConfigShape } from "./config.js";
import { createRendering } from "./rendering.js";
import { createRendererService, RENDERER_PROTO_FILE, RENDERER_SERVICE_NAME } from "./renderer-service.js";

const config = loadConfigOrExit(rendererConfigShape);
const logger = createLogger("renderer", config.LOG_LEVEL);
logFatalErrors(logger);
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const { renderer, browser, close } = await createRendering(config, logger);

// Health answers NOT_SERVING from the moment the port is open until the browser is up.
const server = await startGrpcServer({
  host: config.GRPC_HOST,
  port: config.GRPC_PORT,
  logger,
  services: [
    {
      name: RENDERER_SERVICE_NAME,
      definition: RendererServiceService,
      implementation: createRendererService(logger, { renderer, renderTimeoutMs: config.RENDER_TIMEOUT_MS }),
      protoFile: RENDERER_PROTO_FILE,
    },
  ],
});
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

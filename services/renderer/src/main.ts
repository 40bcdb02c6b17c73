import { createLogger, loadConfigOrExit, logFatalErrors, onShutdownSignal, startGrpcServer } from "@winnow/platform";
import { RendererServiceService } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { BrowserHost, chromiumExecutable } from "./browser.js";
import { rendererConfigShape } from "./config.js";
import { EgressGuard } from "./egress.js";
import { PageSlots } from "./page-slots.js";
import { BrowserRenderer } from "./render.js";
import { createRendererService, RENDERER_PROTO_FILE, RENDERER_SERVICE_NAME } from "./renderer-service.js";

const config = loadConfigOrExit(rendererConfigShape);
const logger = createLogger("renderer", config.LOG_LEVEL);
logFatalErrors(logger);

const browser = new BrowserHost({ executablePath: chromiumExecutable(config.CHROMIUM_PATH), logger });
const renderer = new BrowserRenderer({
  browser,
  guard: new EgressGuard(config.WINNOW_EGRESS_ALLOW),
  slots: new PageSlots(config.RENDER_MAX_PAGES, config.RENDER_MAX_QUEUE),
  maxHtmlBytes: config.RENDER_MAX_HTML_BYTES,
});

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
  await server.shutdown(config.SHUTDOWN_GRACE_MS);
  await browser.close();
});
browser.onReadyChange((ready) => server.setReady(ready));
try {
  await browser.start();
} catch (error) {
  logger.fatal({ err: error }, "the browser could not start");
  process.exit(1);
}

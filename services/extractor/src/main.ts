import { createLogger, loadConfigOrExit, logFatalErrors, onShutdownSignal, serveMetrics, startGrpcServer } from "@winnow/platform";
import { ExtractorServiceService } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { configShape, llmSettings, modelSettings } from "./config.js";
import { LlmEngine } from "./engines/llm.js";
import { createExtractorService } from "./extractor-service.js";
import { SchemaCache } from "./schema-cache.js";

const logger = createLogger("extractor");
logFatalErrors(logger);

const config = loadConfigOrExit(configShape);
logger.level = config.LOG_LEVEL;
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const settings = llmSettings(config);
const llm = settings ? new LlmEngine(settings, logger) : undefined;
logger.info({ llm: settings ? { model: settings.model, baseUrl: settings.baseUrl ?? "default" } : "none; builtin engine only" }, "engines");

const server = await startGrpcServer({
  host: config.GRPC_HOST,
  port: config.GRPC_PORT,
  logger,
  services: [
    {
      name: "winnow.extractor.v1.ExtractorService",
      definition: ExtractorServiceService,
      implementation: createExtractorService({
        logger,
        schemas: new SchemaCache(config.SCHEMA_CACHE_SIZE),
        llm,
        maxHtmlBytes: config.EXTRACT_MAX_HTML_BYTES,
        model: modelSettings(config),
        hybrid: config.EXTRACT_HYBRID,
      }),
      protoFile: "winnow/extractor/v1/extractor.proto",
    },
  ],
});
// Ready at once: the builtin engine always works, and a model endpoint's health must not take the extractor out of rotation.
server.setReady(true);

onShutdownSignal(logger, async () => {
  await server.shutdown(config.SHUTDOWN_GRACE_MS);
});

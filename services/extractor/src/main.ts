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
import { configShape, llmSettings, promptSettings } from "./config.js";
import { engineIdentity } from "./engine-identity.js";
import { LlmEngine } from "./engines/model/llm.js";
import { extractorServiceBinding } from "./extractor-service.js";
import { SchemaCache } from "./schema/schema-cache.js";
import { CachedTemplateStore, TEMPLATE_CACHE_MS } from "./templates/cached-store.js";
import { openTemplateDatabase, SqlTemplateStore } from "./templates/sql-store.js";
import { ExtractionPool } from "./workers/extraction-pool.js";

const config = loadConfigOrExit(configShape);

const logger = createLogger("extractor", config.LOG_LEVEL);
logFatalErrors(logger);
warnOnUnsupportedNode((warning) => logger.warn(warning));
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const settings = llmSettings(config);
const llm = settings ? new LlmEngine(settings, logger) : undefined;
logger.info(
  { llm: settings ? { model: settings.model, baseUrl: settings.baseUrl ?? "default" } : "none; builtin engine only" },
  "engines",
);

const database = config.EXTRACT_TEMPLATES
  ? new SqlTemplateStore(
      () => openTemplateDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.WINNOW_DATA_DIR, logger }),
      {
        templatesPerHost: config.EXTRACT_TEMPLATES_PER_HOST,
        templates: config.EXTRACT_TEMPLATES_MAX,
      },
    )
  : undefined;
// Opened before serving; one that fails is tried again later and meanwhile costs only the template answers.
await database
  ?.database()
  .catch((error: unknown) =>
    logger.error({ err: error }, "template database unavailable; extracting without templates for now"),
  );
// Scrapes read templates from memory; the database is read again at most every few seconds, and written when a page
// teaches something.
const templateStore = database && new CachedTemplateStore(database, TEMPLATE_CACHE_MS);
if (database && !config.WINNOW_PAGE_SIGNING_KEY)
  logger.info("templates answer but learn from no page: set WINNOW_PAGE_SIGNING_KEY here and on the renderer");
const extractions = new ExtractionPool(
  {
    workers: config.EXTRACT_WORKERS,
    maxQueue: config.EXTRACT_MAX_QUEUE,
    worker: {
      prompts: promptSettings(config),
      hybrid: config.EXTRACT_HYBRID,
      templates: templateStore !== undefined,
      schemaCacheSize: config.SCHEMA_CACHE_SIZE,
      logLevel: config.LOG_LEVEL,
    },
  },
  llm,
  templateStore,
);

const server = await startGrpcServer({
  host: config.GRPC_HOST,
  port: config.GRPC_PORT,
  maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
  maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
  logger,
  callers: { service: config.WINNOW_SERVICE_TOKEN.accepted },
  services: [
    extractorServiceBinding({
      logger,
      schemas: new SchemaCache(config.SCHEMA_CACHE_SIZE),
      llm,
      maxHtmlBytes: config.EXTRACT_MAX_HTML_BYTES,
      templateScope: {
        shared: config.EXTRACT_TEMPLATES_SHARED,
        pageSigningKeys: config.WINNOW_PAGE_SIGNING_KEY?.accepted ?? [],
      },
      extractions,
      identity: await engineIdentity(config),
    }),
  ],
});
reportListening();
// Ready at once: the builtin engine always works, and a model endpoint's health must not take the extractor out of
// rotation.
server.setReady(true);

onShutdownSignal(logger, async () => {
  await server.shutdown(config.SHUTDOWN_GRACE_MS);
  await extractions.close();
  await templateStore?.close();
});

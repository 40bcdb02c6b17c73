/**
 * An extractor over real gRPC in the test's process, as main.ts wires it:
 * extraction in a pool of worker threads (which load the build: run `npm run
 * build` first), the template store on this thread, caller tokens checked.
 */
import { createClient, createLogger, startGrpcServer } from "@winnow/platform";
import { ExtractorServiceClient } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import type { LlmEngine } from "./engines/model/llm.js";
import { extractorServiceBinding } from "./extractor-service.js";
import { SchemaCache } from "./schema/schema-cache.js";
import type { TemplateStore } from "./templates/store.js";
import { ExtractionPool } from "./workers/extraction-pool.js";

const logger = createLogger("extractor-test", "silent");

export async function startTestExtractor(
  llm: LlmEngine | undefined,
  options: { templates?: TemplateStore; sharedTemplates?: boolean; pageSigningKey?: string } = {},
) {
  const extractions = new ExtractionPool(
    {
      workers: 2,
      maxQueue: 16,
      worker: {
        prompts: { pageTokens: 4_000, maxParts: 4, maxParallel: 2, grounding: "warn" },
        hybrid: "proven",
        templates: options.templates !== undefined,
        schemaCacheSize: 64,
        logLevel: "silent",
      },
    },
    llm,
    options.templates,
  );
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    callers: { service: TEST_TOKENS.service },
    services: [
      extractorServiceBinding({
        logger,
        schemas: new SchemaCache(),
        llm,
        maxHtmlBytes: 64 * 1024,
        templateScope: {
          shared: options.sharedTemplates ?? false,
          pageSigningKeys: options.pageSigningKey ? [options.pageSigningKey] : [],
        },
        extractions,
        identity: { model: llm ? "test-model" : "", engineVersion: "test" },
      }),
    ],
  });
  server.setReady(true);
  const client = createClient(ExtractorServiceClient, `127.0.0.1:${server.port}`, TEST_TOKENS.service);
  return {
    server,
    client,
    extractions,
    async close() {
      client.close();
      await server.shutdown(1_000);
      await extractions.close();
    },
  };
}

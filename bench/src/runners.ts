/**
 * The two ways the quality harness reaches Winnow: the extractor alone, as
 * its own process over gRPC (the page fetched from the loopback server and
 * sent as HTML), or the whole stack over HTTP (the renderer loads the page
 * in Chromium, as a customer's request would).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkHealth, createClient, promiseClient, signPage } from "@winnow/platform";
import { Engine, type Evidence, ExtractorServiceClient } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { freePorts } from "@winnow/scripts/ports";
import { serviceEntry } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";

export interface Extraction {
  data: Record<string, unknown> | undefined;
  /** The error's text when the request failed. */
  error: string | undefined;
  /** Time of the extraction request alone (gRPC mode) or of the whole scrape (stack mode). */
  ms: number;
  /** Size of the HTML extracted, when known (gRPC mode). */
  htmlBytes: number | undefined;
  /** Model tokens spent, when known (gRPC mode). */
  tokens: number | undefined;
  /** The codes of the answer's warnings, when known (gRPC mode). */
  warnings: string[];
  /** Each value's evidence by JSON pointer (gRPC mode; empty in stack mode). */
  evidence: Map<string, Evidence>;
  /** Each field's status by JSON pointer (gRPC mode; empty in stack mode). */
  fieldStatus: Map<string, string>;
}

export interface Runner {
  /**
   * `url` serves the page on loopback; `originalUrl` is where it was saved from; `engine` is honoured in gRPC mode;
   * `taskDescription` is the request's (with-task.ts).
   */
  run(
    url: string,
    schema: unknown,
    originalUrl: string,
    engine?: Engine,
    taskDescription?: string,
  ): Promise<Extraction>;
  stop(): Promise<void>;
}

/** The gateway's default deadline for a whole scrape. */
const REQUEST_TIMEOUT_MS = 60_000;
/** The extractor's caller token for this run. */
const SERVICE_TOKEN = randomBytes(32).toString("base64url");
/** The bench fetches pages itself, as the renderer would, and signs them so they teach (page-signature.ts). */
const PAGE_SIGNING_KEY = randomBytes(32).toString("base64url");
/** No model unless one is given: the harness measures the builtin engine. */
const WITHOUT_LLM = { LLM_BASE_URL: "", LLM_API_KEY: "", OPENAI_API_KEY: "", LOG_LEVEL: "warn" };

/** An OpenAI-compatible endpoint for the extractor (the oracle reader). */
export interface ModelEndpoint {
  baseUrl: string;
  model: string;
}

/** The services' model settings: the endpoint given, else none at all (a developer's own never leaks in). */
export function llmEnv(model: ModelEndpoint | undefined): Record<string, string> {
  return model
    ? { ...WITHOUT_LLM, LLM_BASE_URL: model.baseUrl, LLM_API_KEY: "unused", LLM_MODEL: model.model }
    : WITHOUT_LLM;
}

/** The extractor as a real process, called over gRPC; with a model when one is given. */
export async function startExtractorRunner(model?: ModelEndpoint): Promise<Runner> {
  const [port] = await freePorts(1);
  const address = `127.0.0.1:${port}`;
  // Its own data directory: templates learned by an earlier run must not answer this one.
  const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-bench-extractor-"));
  const child = spawn(process.execPath, [serviceEntry("extractor")], {
    env: {
      ...process.env,
      ...llmEnv(model),
      GRPC_HOST: "127.0.0.1",
      GRPC_PORT: String(port),
      WINNOW_DATA_DIR: dataDir,
      WINNOW_SERVICE_TOKEN: SERVICE_TOKEN,
      WINNOW_PAGE_SIGNING_KEY: PAGE_SIGNING_KEY,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Generous: a loaded machine starts slowly (2 cores at a load average near 30 took over two minutes), and a child
  // that exits ends the wait at once.
  const deadline = Date.now() + 600_000;
  while ((await checkHealth(address)) !== "SERVING") {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`the extractor did not start on ${address}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const client = createClient(ExtractorServiceClient, address, SERVICE_TOKEN);
  return {
    async run(url, schema, originalUrl, engine = Engine.ENGINE_BUILTIN, taskDescription = "") {
      const html = await (await fetch(url)).text();
      const started = performance.now();
      try {
        // As the gateway would, the extractor is told the page's own address (its host names the site), and the page,
        // which the bench fetched itself, teaches the bench's templates.
        const response = await promiseClient(client).extract(
          {
            url: originalUrl,
            html,
            schemaJson: JSON.stringify(schema),
            taskDescription,
            options: { engine, includeModelInput: false, evidence: true },
            tenant: "bench",
            learn: true,
            pageWarnings: [],
            wantNextPage: false,
            knownFields: [],
            pageSignature: signPage(PAGE_SIGNING_KEY, originalUrl, html),
            fieldHints: {},
            fieldRules: {},
          },
          { deadline: new Date(Date.now() + REQUEST_TIMEOUT_MS) },
        );
        return {
          data: JSON.parse(response.dataJson) as Record<string, unknown>,
          error: undefined,
          ms: performance.now() - started,
          htmlBytes: Buffer.byteLength(html),
          tokens: response.usage?.totalTokens ?? 0,
          warnings: response.warnings.map((w) => w.code),
          evidence: new Map(response.evidence.map((item) => [item.pointer, item])),
          fieldStatus: new Map(response.fieldStatus.map(({ pointer, status }) => [pointer, status])),
        };
      } catch (error) {
        return {
          data: undefined,
          error: (error as Error).message,
          ms: performance.now() - started,
          htmlBytes: Buffer.byteLength(html),
          tokens: undefined,
          warnings: [],
          evidence: new Map(),
          fieldStatus: new Map(),
        };
      }
    },
    async stop() {
      client.close();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The four services as processes, scraped over HTTP; the renderer may reach only the page server. */
export async function startStackRunner(pageHostPort: string, model?: ModelEndpoint): Promise<Runner> {
  const output: string[] = [];
  // A throwaway stack, as in the end-to-end tests: a clean environment and plans generous enough for a corpus.
  const stack = await startThrowawayStack({
    env: { ...llmEnv(model), WINNOW_EGRESS_ALLOW: pageHostPort },
    onOutput: (service, line) => output.push(`${service}: ${line}`),
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n${output.slice(-30).join("\n")}`);
  });
  return {
    async run(url, schema, _originalUrl, _engine, taskDescription) {
      const started = performance.now();
      try {
        const response = await fetch(`${stack.gatewayUrl}/scrape`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
          body: JSON.stringify({ url, schema, ...(taskDescription ? { task_description: taskDescription } : {}) }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = (await response.json()) as Record<string, unknown>;
        const ms = performance.now() - started;
        const unknown = {
          htmlBytes: undefined,
          tokens: undefined,
          warnings: [],
          evidence: new Map<string, Evidence>(),
          fieldStatus: new Map<string, string>(),
        };
        if (!response.ok)
          return {
            data: undefined,
            error: `HTTP ${response.status}: ${String(body.title ?? body.type)} (${String(body.detail ?? "")})`,
            ms,
            ...unknown,
          };
        return { data: body, error: undefined, ms, ...unknown };
      } catch (error) {
        return {
          data: undefined,
          error: (error as Error).message,
          ms: performance.now() - started,
          htmlBytes: undefined,
          tokens: undefined,
          warnings: [],
          evidence: new Map(),
          fieldStatus: new Map(),
        };
      }
    },
    async stop() {
      await stack.stop();
    },
  };
}

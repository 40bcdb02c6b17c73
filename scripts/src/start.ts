/**
 * `npm start`: the whole stack on one machine, on embedded defaults. Refuses
 * to start (one line, exit 1) when its ports or its data directory are in
 * use; prints the gateway URL, a working API key and a curl example once all
 * four services are ready; Ctrl-C stops everything.
 */
import path from "node:path";
import {
  env,
  keepFilesPrivate,
  loadConfigOrExit,
  lockDirectory,
  StartupError,
  warnOnUnsupportedNode,
} from "@winnow/platform";
import { z } from "zod";
import { formatLogLine } from "./log-format.js";
import { portsInUse } from "./ports.js";
import { startSampleSite } from "./sample-site.js";
import { REPO_ROOT, type ServiceName, type Stack, startStack } from "./stack.js";

// Every service inherits it: .data/ (the databases, the dev key, the encryption key) is this user's alone.
keepFilesPrivate();
const config = loadConfigOrExit({
  PORT: env.port(8080),
  AUTH_GRPC_PORT: env.port(50051),
  RENDERER_GRPC_PORT: env.port(50052),
  EXTRACTOR_GRPC_PORT: env.port(50053),
  /** The gateway's metrics port; auth, renderer and extractor take the next three. */
  METRICS_PORT_BASE: env.port(9464).refine((port) => port <= 65532, "must be at most 65532 (four ports from it)"),
  METRICS_PORT: z.never({ message: "is one service's; npm start runs four: set METRICS_PORT_BASE instead" }).optional(),
  HOST: env.host("127.0.0.1"),
  GRPC_HOST: env.host("127.0.0.1"),
  METRICS_HOST: env.host("127.0.0.1"),
  WINNOW_DATA_DIR: z.string().min(1).default(".data"),
});

const SERVICES: ServiceName[] = ["gateway", "auth", "renderer", "extractor"];
const metricsPorts = Object.fromEntries(SERVICES.map((s, i) => [s, config.METRICS_PORT_BASE + i])) as Record<
  ServiceName,
  number
>;
const PORT_VARIABLES = "PORT, AUTH_GRPC_PORT, RENDERER_GRPC_PORT, EXTRACTOR_GRPC_PORT and METRICS_PORT_BASE";

const refuse = (reason: string): never => {
  console.error(`Winnow did not start: ${reason}`);
  process.exit(1);
};

const busy = await portsInUse([
  { host: config.HOST, port: config.PORT, variable: "PORT" },
  { host: config.GRPC_HOST, port: config.AUTH_GRPC_PORT, variable: "AUTH_GRPC_PORT" },
  { host: config.GRPC_HOST, port: config.RENDERER_GRPC_PORT, variable: "RENDERER_GRPC_PORT" },
  { host: config.GRPC_HOST, port: config.EXTRACTOR_GRPC_PORT, variable: "EXTRACTOR_GRPC_PORT" },
  ...SERVICES.map((s, i) => ({ host: config.METRICS_HOST, port: metricsPorts[s], variable: `METRICS_PORT_BASE+${i}` })),
]);
if (busy.length > 0) {
  const list = busy.map((p) => `${p.port} (${p.variable})`).join(", ");
  refuse(
    `port${busy.length > 1 ? "s" : ""} ${list} in use, by another Winnow or another program; choose free ones with ${PORT_VARIABLES}.`,
  );
}
// Held while this stack runs: a second stack on the same databases would corrupt them.
const dataDir = path.resolve(REPO_ROOT, config.WINNOW_DATA_DIR);
try {
  await lockDirectory(dataDir, "give this stack its own with WINNOW_DATA_DIR.");
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  refuse(`the data directory ${error.message}`);
}

const rawLogs = process.env.LOG_FORMAT === "json";
const print = (service: ServiceName, line: string) => console.log(rawLogs ? line : formatLogLine(service, line));

const sample = await startSampleSite();
const egressAllow = [process.env.WINNOW_EGRESS_ALLOW, sample.hostPort].filter(Boolean).join(",");

// Interrupted while starting: exit at once; the stack's exit hook kills the services it had started.
const interrupted = () => process.exit(130);
process.once("SIGINT", interrupted);
process.once("SIGTERM", interrupted);
// Once for the whole stack (the services it starts leave it to this process), and not before a refusal's one line.
warnOnUnsupportedNode((warning) => console.warn(`Warning: ${warning}`));
console.log("Starting Winnow: auth, renderer, extractor, gateway ...");
let stack: Stack;
try {
  stack = await startStack({
    env: { WINNOW_EGRESS_ALLOW: egressAllow },
    ports: {
      gateway: config.PORT,
      auth: config.AUTH_GRPC_PORT,
      renderer: config.RENDERER_GRPC_PORT,
      extractor: config.EXTRACTOR_GRPC_PORT,
    },
    metricsPorts,
    onOutput: print,
    onEvent: (message) => console.log(`supervisor: ${message}`),
  });
} catch (error) {
  console.error(`Winnow did not start: ${(error as Error).message}`);
  await sample.close();
  process.exit(1);
}
const schema = JSON.stringify({
  product_name: "string",
  brand: "string",
  price_usd: "number",
  rating_out_of_5: "number",
});
console.log(`
Winnow is ready.

  Gateway:  ${stack.gatewayUrl}
  API key:  ${stack.apiKey}

Try it on a sample page served locally (any public http(s) URL works the same way):

  curl -s ${stack.gatewayUrl}/scrape \\
    -H 'content-type: application/json' \\
    -H 'x-api-key: ${stack.apiKey}' \\
    -d '{"url": "${sample.url}", "schema": ${schema}}'

Press Ctrl-C to stop.
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log("Stopping Winnow ...");
  await stack.stop();
  await sample.close();
  process.exit(0);
};
process.off("SIGINT", interrupted);
process.off("SIGTERM", interrupted);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

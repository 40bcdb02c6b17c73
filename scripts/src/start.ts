/**
 * `npm start`: the whole stack on one machine, on embedded defaults. Refuses
 * to start (one line, exit 1) when its ports or its data directory are in
 * use; prints the gateway URL, a working API key and a curl example once all
 * five services are ready; Ctrl-C stops everything.
 */
import path from "node:path";
import {
  env,
  keepFilesPrivate,
  loadConfigOrExit,
  lockDirectory,
  StartupError,
  supervisorGone,
  warnOnUnsupportedNode,
} from "@winnow/platform";
import { z } from "zod";
import { carryBatchJobsOver } from "./embedded-upgrade.js";
import { formatLogLine } from "./log-format.js";
import { startSampleSite } from "./sample-site.js";
import { REPO_ROOT, type ServiceName, type Stack, startStack } from "./stack.js";
import { SERVICES, STACK_DEFAULTS, startRefusal } from "./start-checks.js";

// Every service inherits it: .data/ (the databases, the dev key, the encryption key) is this user's alone.
keepFilesPrivate();
const config = loadConfigOrExit({
  PORT: env.port(STACK_DEFAULTS.PORT),
  AUTH_GRPC_PORT: env.port(STACK_DEFAULTS.AUTH_GRPC_PORT),
  RENDERER_GRPC_PORT: env.port(STACK_DEFAULTS.RENDERER_GRPC_PORT),
  EXTRACTOR_GRPC_PORT: env.port(STACK_DEFAULTS.EXTRACTOR_GRPC_PORT),
  JOBS_GRPC_PORT: env.port(STACK_DEFAULTS.JOBS_GRPC_PORT),
  /** The gateway's metrics port; auth, renderer, extractor and the jobs worker take the next four. */
  METRICS_PORT_BASE: env
    .port(STACK_DEFAULTS.METRICS_PORT_BASE)
    .refine((port) => port <= 65531, "must be at most 65531 (five ports from it)"),
  METRICS_PORT: z.never({ message: "is one service's; npm start runs five: set METRICS_PORT_BASE instead" }).optional(),
  HOST: env.host(STACK_DEFAULTS.HOST),
  GRPC_HOST: env.host(STACK_DEFAULTS.GRPC_HOST),
  METRICS_HOST: env.host(STACK_DEFAULTS.METRICS_HOST),
  WINNOW_DATA_DIR: z.string().min(1).default(STACK_DEFAULTS.WINNOW_DATA_DIR),
});

const metricsPorts = Object.fromEntries(SERVICES.map((s, i) => [s, config.METRICS_PORT_BASE + i])) as Record<
  ServiceName,
  number
>;

const refuse = (reason: string): never => {
  console.error(`Winnow did not start: ${reason}`);
  process.exit(1);
};

// Checked before the build too (npm start runs start-checks.js first); again now, as the build takes a while.
const refusal = await startRefusal(config);
if (refusal) refuse(refusal);
// Held while this stack runs: a second stack on the same databases would corrupt them.
const dataDir = path.resolve(REPO_ROOT, config.WINNOW_DATA_DIR);
try {
  await lockDirectory(dataDir, "give this stack its own with WINNOW_DATA_DIR.");
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  refuse(`the data directory ${error.message}`);
}
if (await carryBatchJobsOver(dataDir))
  console.log(
    "Batch jobs from before the jobs worker carry on: its database (jobs-db/) starts as a copy of the gateway's.",
  );

/** How often this process looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 1_000;
const rawLogs = process.env.LOG_FORMAT === "json";
const print = (service: ServiceName, line: string) => console.log(rawLogs ? line : formatLogLine(service, line));

const sample = await startSampleSite();
const egressAllow = [process.env.WINNOW_EGRESS_ALLOW, sample.hostPort].filter(Boolean).join(",");

let stack: Stack | undefined;
let stopping = false;
const stop = async (running: Stack) => {
  if (stopping) return;
  stopping = true;
  console.log("Stopping Winnow ...");
  await running.stop();
  await sample.close();
  process.exit(0);
};
// Ctrl-C, a kill, a closed terminal, or the program that started this one gone (tests start it over IPC). While
// starting: exit at once; the stack's exit hook kills the services it had started.
const end = () => (stack ? void stop(stack) : process.exit(130));
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, end);
supervisorGone(end);
// npm's script execs this process, so npm is its parent: npm killed outright (SIGKILL sends no signal on) leaves this
// process re-parented, and the stack goes with it.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && end(), PARENT_CHECK_MS).unref();
// Once for the whole stack (the services it starts leave it to this process), and not before a refusal's one line.
warnOnUnsupportedNode((warning) => console.warn(`Warning: ${warning}`));
console.log("Starting Winnow: auth, renderer, extractor, jobs worker, gateway ...");
try {
  stack = await startStack({
    env: { WINNOW_EGRESS_ALLOW: egressAllow },
    ports: {
      gateway: config.PORT,
      auth: config.AUTH_GRPC_PORT,
      renderer: config.RENDERER_GRPC_PORT,
      extractor: config.EXTRACTOR_GRPC_PORT,
      jobs: config.JOBS_GRPC_PORT,
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

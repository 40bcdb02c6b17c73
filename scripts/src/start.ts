/**
 * `npm start`: the whole stack on one machine, on embedded defaults. Prints
 * the gateway URL, a working API key and a curl example once all four
 * services are ready; Ctrl-C stops everything.
 */
import { env, keepFilesPrivate, loadConfigOrExit } from "@winnow/platform";
import { formatLogLine } from "./log-format.js";
import { startSampleSite } from "./sample-site.js";
import { type ServiceName, type Stack, startStack } from "./stack.js";

// Every service inherits it: .data/ (the databases, the dev key, the encryption key) is this user's alone.
keepFilesPrivate();
const config = loadConfigOrExit({
  PORT: env.port(8080),
  AUTH_GRPC_PORT: env.port(50051),
  RENDERER_GRPC_PORT: env.port(50052),
  EXTRACTOR_GRPC_PORT: env.port(50053),
});

const rawLogs = process.env.LOG_FORMAT === "json";
const print = (service: ServiceName, line: string) => console.log(rawLogs ? line : formatLogLine(service, line));

const sample = await startSampleSite();
const egressAllow = [process.env.WINNOW_EGRESS_ALLOW, sample.hostPort].filter(Boolean).join(",");

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
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

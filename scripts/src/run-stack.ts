/**
 * Starts a throwaway stack for another program's tests (the Python client's),
 * letting through the egress the caller names (WINNOW_EGRESS_ALLOW). Prints one
 * JSON line, {"gateway_url", "api_key"}, once ready; stops when its stdin
 * closes or on SIGTERM.
 */
import { startThrowawayStack } from "./throwaway-stack.js";

const stack = await startThrowawayStack({
  env: { WINNOW_EGRESS_ALLOW: process.env.WINNOW_EGRESS_ALLOW, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" },
  onOutput: (service, line) => process.stderr.write(`${service}: ${line}\n`),
});
process.stdout.write(`${JSON.stringify({ gateway_url: stack.gatewayUrl, api_key: stack.apiKey })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(0);
};
process.stdin.on("end", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

/**
 * Starts a throwaway stack for another program's tests (the Python client's):
 * free ports, a fresh data directory, the caller's environment. Prints one
 * JSON line, {"gateway_url", "api_key"}, once ready; stops when its stdin
 * closes or on SIGTERM.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePorts } from "./ports.js";
import { startStack } from "./stack.js";

const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-stack-"));
const [gateway, auth, renderer, extractor] = (await freePorts(4)) as [number, number, number, number];
const stack = await startStack({
  env: { WINNOW_DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn" },
  ports: { gateway, auth, renderer, extractor },
  onOutput: (service, line) => process.stderr.write(`${service}: ${line}\n`),
});
process.stdout.write(`${JSON.stringify({ gateway_url: stack.gatewayUrl, api_key: stack.apiKey })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.stdin.on("end", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

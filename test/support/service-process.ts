import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkHealth } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import { REPO_ROOT, type ServiceName, serviceEntry } from "../../scripts/src/stack.js";
import { TEST_TOKEN_ENV } from "./caller-tokens.js";
import { TEST_TIMEOUT_MS } from "./test-timeout.js";

export interface ServiceProcess {
  child: ChildProcess;
  /** Every output line so far. */
  output: string[];
  stop(): Promise<void>;
}

/**
 * One service as its own process outside a stack (a second gateway replica,
 * or auth alone), started from its build and awaited until it answers: the
 * gateway on /healthz, a backend on gRPC health. Its caller tokens are
 * TEST_TOKENS unless env says otherwise, and its data directory (its embedded
 * databases, one process's each) a fresh temporary one unless env names one. `nodeArgs` go before the entry
 * (`["--import", "@winnow/platform/telemetry"]` to trace it).
 */
export async function startService(
  service: ServiceName,
  env: NodeJS.ProcessEnv,
  readyAt: string,
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  const ownDataDir = env.WINNOW_DATA_DIR ? undefined : await mkdtemp(path.join(tmpdir(), `winnow-${service}-`));
  // Its embedded database in a data directory of its own (the renderer has none; a service on a Postgres server leaves
  // the copy unused). A directory the caller names stays as the caller made it.
  if (ownDataDir && service !== "renderer") await seedPgliteDirectory(path.join(ownDataDir, `${service}-db`));
  const child = spawn(process.execPath, [...nodeArgs, serviceEntry(service)], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: "info",
      ...TEST_TOKEN_ENV,
      ...(ownDataDir && { WINNOW_DATA_DIR: ownDataDir }),
      ...env,
    },
    // An IPC channel: a test run that is interrupted takes the service with it (platform's supervisorGone).
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.channel?.unref();
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => output.push(...chunk.split("\n").filter(Boolean)));
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
  };
  // PGlite and Chromium start slowly on a busy 2-core machine: as long as a hook may take (WINNOW_TEST_TIMEOUT_MS).
  const deadline = Date.now() + 2 * TEST_TIMEOUT_MS;
  while (!(await answers(service, readyAt))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${service} did not start:\n${output.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, output, stop };
}

async function answers(service: ServiceName, address: string): Promise<boolean> {
  if (service !== "gateway") return (await checkHealth(address)) === "SERVING";
  try {
    const res = await fetch(`${address}/healthz`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

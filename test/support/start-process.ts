/**
 * `npm start` as the user runs it (scripts' start.js, built), as a process of
 * its own: its output kept line by line (LOG_FORMAT=json, so every service
 * line is its pino JSON), and what it prints once ready.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { freePortRange, freePorts } from "./ports.js";

export interface StartProcess {
  child: ChildProcess;
  /** Every line of its stdout and stderr so far. */
  lines: string[];
  env: NodeJS.ProcessEnv;
  /** Its exit code once it has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export interface ReadyStack {
  gatewayUrl: string;
  apiKey: string;
  /** The sample page the printed curl scrapes. */
  sampleUrl: string;
}

/** The variables that place a stack: its HTTP, gRPC and metrics ports, its data directory. */
export async function stackPlacement(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const [port, auth, renderer, extractor, jobs] = await freePorts(5);
  return {
    PORT: String(port),
    AUTH_GRPC_PORT: String(auth),
    RENDERER_GRPC_PORT: String(renderer),
    EXTRACTOR_GRPC_PORT: String(extractor),
    JOBS_GRPC_PORT: String(jobs),
    METRICS_PORT_BASE: String(await freePortRange(5)),
    WINNOW_DATA_DIR: dataDir,
  };
}

export function runStart(env: NodeJS.ProcessEnv, { viaNpm = false } = {}): StartProcess {
  const fullEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_FORMAT: "json", ...env };
  // Through the npm CLI as a user types it (its build first; no IPC: only its parent watch ties the stack to npm), or
  // start.js itself over an IPC channel, so that a test run that is interrupted takes its stacks with it (platform's
  // supervisorGone).
  const child = viaNpm
    ? spawn("npm", ["start"], { cwd: REPO_ROOT, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, [path.join(REPO_ROOT, "scripts/dist/start.js")], {
        cwd: REPO_ROOT,
        env: fullEnv,
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
  child.channel?.unref();
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => lines.push(line));
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    lines,
    env: fullEnv,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** What the start prints once its stack is ready; rejects with its output if it exits first. */
export async function untilReady(start: StartProcess): Promise<ReadyStack> {
  let done = false;
  void start.exited.then(() => (done = true));
  for (;;) {
    const text = start.lines.join("\n");
    if (text.includes("Press Ctrl-C to stop.")) {
      const found = (pattern: RegExp) => pattern.exec(text)?.[1] ?? "";
      return {
        gatewayUrl: found(/Gateway: +(\S+)/),
        apiKey: found(/API key: +(\S+)/),
        sampleUrl: found(/"url": "([^"]+)"/),
      };
    }
    if (done) throw new Error(`npm start exited before it was ready:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The services' log lines among its output (pino JSON), parsed. */
export function serviceLines(start: StartProcess): Record<string, unknown>[] {
  return start.lines.flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

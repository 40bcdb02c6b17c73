/**
 * Runs the five services (auth, renderer, extractor, the jobs worker, the gateway) as separate processes on one machine: starts them,
 * waits until each is ready, restarts a crashed one with backoff, and stops
 * them all cleanly. Used by `npm start` and by the end-to-end tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { checkHealth, LISTENING_MESSAGE, PAGE_SIGNING_KEY_VARIABLE, TOKEN_VARIABLES } from "@winnow/platform";
import {
  type CallerTokenSet,
  loadOrCreateCallerTokens,
  loadOrCreatePageSigningKey,
  tokenEnv,
} from "./caller-tokens.js";
import { REPO_ROOT } from "./start-checks.js";

export { REPO_ROOT };

export type ServiceName = "auth" | "renderer" | "extractor" | "jobs" | "gateway";

/**
 * The file that starts a service: its package's `./main` export, wherever the package builds it; the jobs worker is
 * the gateway package's second entry point (it runs the gateway's scrape code).
 */
export function serviceEntry(service: ServiceName): string {
  const entry = service === "jobs" ? "@winnow/gateway/jobs-main" : `@winnow/${service}/main`;
  return createRequire(import.meta.url).resolve(entry);
}
/** What the gateway and the jobs worker call; stopped after them. */
const BACKENDS = ["auth", "renderer", "extractor"] as const;
/** The gRPC services, each ready once its health check says SERVING. */
const GRPC_SERVICES = [...BACKENDS, "jobs"] as const;

export interface StackOptions {
  /** Environment shared by every service (on top of process.env unless inheritEnv is false). */
  env?: NodeJS.ProcessEnv;
  /** Extra Node.js flags for one service (e.g. --cpu-prof). */
  nodeArgs?: Partial<Record<ServiceName, string[]>>;
  inheritEnv?: boolean;
  ports: Record<ServiceName, number>;
  /** Each service's METRICS_PORT; unset: their defaults (9464-9468). */
  metricsPorts?: Record<ServiceName, number>;
  /** Receives every output line of every service. */
  onOutput?: (service: ServiceName, line: string) => void;
  /** Receives supervisor events (exits, restarts). */
  onEvent?: (message: string) => void;
  readyTimeoutMs?: number;
}

export interface Stack {
  gatewayUrl: string;
  /** The dev account's API key (WINNOW_DEV_API_KEY, or the one auth generated and kept). */
  apiKey: string;
  /** The internal gRPC caller tokens the services were given (from the environment, or kept in the data directory). */
  callerTokens: CallerTokenSet;
  /** The process of a service as it runs now (it changes after a restart). */
  process(service: ServiceName): ChildProcess;
  /** Resolves once every service is ready (again). */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const RESTART_BACKOFF_MS = { first: 500, max: 30_000 };
/** A service that stayed up this long is healthy again; its backoff resets. */
const STABLE_AFTER_MS = 60_000;
const STOP_GRACE_MS = 15_000;

export async function startStack(options: StackOptions): Promise<Stack> {
  const base = options.inheritEnv === false ? {} : process.env;
  const env: NodeJS.ProcessEnv = { ...base, ...options.env };
  const addr = (service: ServiceName) => `127.0.0.1:${options.ports[service]}`;
  const dataDir = path.resolve(REPO_ROOT, env.WINNOW_DATA_DIR || ".data");
  const tokens = await loadOrCreateCallerTokens(dataDir, env);
  const signing = await loadOrCreatePageSigningKey(dataDir, env);
  for (const variable of [...Object.values(TOKEN_VARIABLES), PAGE_SIGNING_KEY_VARIABLE]) delete env[variable];
  // Each service gets only the tokens its role needs: the renderer and the extractor never hold auth's, and only they
  // hold the page signing key.
  const backendAddresses = {
    AUTH_ADDR: addr("auth"),
    RENDERER_ADDR: addr("renderer"),
    EXTRACTOR_ADDR: addr("extractor"),
  };
  const serviceEnv: Record<ServiceName, NodeJS.ProcessEnv> = {
    auth: { GRPC_PORT: String(options.ports.auth), ...tokenEnv(tokens, ["gateway", "admin"]) },
    renderer: { GRPC_PORT: String(options.ports.renderer), ...tokenEnv(tokens, ["service"]), ...signing },
    extractor: { GRPC_PORT: String(options.ports.extractor), ...tokenEnv(tokens, ["service"]), ...signing },
    // The jobs worker scrapes as the gateway does, with the gateway's tokens, and takes the gateway's calls.
    jobs: { GRPC_PORT: String(options.ports.jobs), ...backendAddresses, ...tokenEnv(tokens, ["gateway", "service"]) },
    gateway: {
      PORT: String(options.ports.gateway),
      ...backendAddresses,
      JOBS_ADDR: addr("jobs"),
      ...tokenEnv(tokens, ["gateway", "service"]),
    },
  };

  const supervisors = new Map<ServiceName, Supervisor>();
  for (const service of [...GRPC_SERVICES, "gateway"] as const) {
    const metricsPort = options.metricsPorts ? { METRICS_PORT: String(options.metricsPorts[service]) } : {};
    const supervisor = new Supervisor(
      service,
      { ...env, ...serviceEnv[service], ...metricsPort, OTEL_SERVICE_NAME: `winnow-${service}` },
      options,
    );
    supervisors.set(service, supervisor);
    supervisor.start();
  }
  const gatewayUrl = `http://127.0.0.1:${options.ports.gateway}`;
  // Whatever ends this process (a test runner's worker, a crash), the services must not outlive it.
  const killAll = () => {
    for (const supervisor of supervisors.values()) supervisor.child?.kill("SIGKILL");
  };
  process.once("exit", killAll);
  const stopAll = async () => {
    // The gateway and the jobs worker first: their drains write the usage they counted to auth, which must still
    // be up (and the worker's pages need the renderer and the extractor until they end).
    await Promise.all((["gateway", "jobs"] as const).map((service) => supervisors.get(service)!.stop()));
    await Promise.all(BACKENDS.map((service) => supervisors.get(service)!.stop()));
    process.off("exit", killAll);
  };

  const waitUntilReady = async (timeoutMs = options.readyTimeoutMs ?? 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const failed = [...supervisors.values()].find((s) => s.startupFailure);
      if (failed) throw new Error(`${failed.service} ${failed.startupFailure}; see its output above`);
      // Only once this stack's own processes hold their ports do the ports' answers speak for them.
      const bound = [...supervisors.values()].every((s) => s.listening);
      const backendStatus = await Promise.all(
        GRPC_SERVICES.map((s) => (bound ? checkHealth(addr(s)) : Promise.resolve("UNREACHABLE"))),
      );
      if (bound && backendStatus.every((s) => s === "SERVING") && (await isReady(`${gatewayUrl}/readyz`))) return;
      if (Date.now() > deadline) {
        const waiting = GRPC_SERVICES.filter((_, i) => backendStatus[i] !== "SERVING");
        throw new Error(
          `the stack was not ready within ${timeoutMs} ms (waiting for: ${[...waiting, "gateway"].join(", ")})`,
        );
      }
      await sleep(200);
    }
  };

  try {
    await waitUntilReady();
    for (const supervisor of supervisors.values()) supervisor.restartOnExit = true;
    return {
      gatewayUrl,
      apiKey: env.WINNOW_DEV_API_KEY || (await readFile(path.join(dataDir, "dev-api-key"), "utf8")).trim(),
      callerTokens: tokens,
      process: (service) => supervisors.get(service)!.child!,
      waitUntilReady,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function isReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Keeps one service process running. Until the stack has come up once, an
 * exit is a start-up failure (bad configuration does not fix itself); after
 * that a crashed process is restarted with exponential backoff.
 */
class Supervisor {
  child: ChildProcess | undefined;
  /** Whether the running process has said its server is bound (platform's reportListening). */
  listening = false;
  restartOnExit = false;
  startupFailure: string | undefined;
  private stopping = false;
  private backoffMs = RESTART_BACKOFF_MS.first;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly service: ServiceName,
    private readonly env: NodeJS.ProcessEnv,
    private readonly options: StackOptions,
  ) {}

  start(): void {
    const entry = serviceEntry(this.service);
    const startedAt = Date.now();
    const nodeArgs = this.options.nodeArgs?.[this.service] ?? [];
    const child = spawn(process.execPath, [...nodeArgs, "--import", "@winnow/platform/telemetry", entry], {
      cwd: REPO_ROOT,
      env: { ...this.env, WINNOW_SUPERVISOR: "ipc" },
      // The IPC channel carries one message: the service's server is bound.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // A process group of its own: Ctrl-C in a terminal reaches the supervisor alone, which stops
      // the services in order (the gateway's drain writes its usage to auth before auth stops).
      detached: true,
    });
    this.child = child;
    this.listening = false;
    child.on("message", (message) => {
      if (message === LISTENING_MESSAGE) this.listening = true;
    });
    // The channel must not keep this process alive either. Its closing is what tells the service this process is
    // gone, however it ended (platform's supervisorGone): the process group above keeps signals from saying so.
    child.channel?.unref();
    // Both piped (stdio above).
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on(
        "line",
        (line) => line && this.options.onOutput?.(this.service, line),
      );
    }
    child.on("exit", (code, signal) => {
      this.listening = false;
      if (this.stopping) return;
      const how = signal ?? `code ${code}`;
      if (!this.restartOnExit) {
        this.startupFailure = `exited (${how}) while starting`;
        return;
      }
      if (Date.now() - startedAt > STABLE_AFTER_MS) this.backoffMs = RESTART_BACKOFF_MS.first;
      this.options.onEvent?.(`${this.service} exited (${how}); restarting in ${this.backoffMs} ms`);
      this.restartTimer = setTimeout(() => this.start(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, RESTART_BACKOFF_MS.max);
    });
  }

  /** SIGTERM, then SIGKILL if the process has not drained and exited within the grace period. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

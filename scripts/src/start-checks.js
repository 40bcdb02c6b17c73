/**
 * What `npm start` checks before it builds anything: that the ports its five
 * services will take and its data directory are free. Plain JavaScript on
 * Node.js' own modules and proper-lockfile, so that it runs before the first
 * build (which takes a minute or two), and run again by start.js, built, just
 * before the stack starts (something may have taken a port meanwhile). Run as
 * a program, it prints the refusal in one line and exits 1.
 */
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import lockfile from "proper-lockfile";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The variables that place a stack, with the values `npm start` takes when they are unset. */
export const STACK_DEFAULTS = {
  PORT: 8080,
  AUTH_GRPC_PORT: 50051,
  RENDERER_GRPC_PORT: 50052,
  EXTRACTOR_GRPC_PORT: 50053,
  JOBS_GRPC_PORT: 50054,
  /** The gateway's metrics port; auth, renderer, extractor and the jobs worker take the next four. */
  METRICS_PORT_BASE: 9464,
  HOST: "127.0.0.1",
  GRPC_HOST: "127.0.0.1",
  METRICS_HOST: "127.0.0.1",
  WINNOW_DATA_DIR: ".data",
};

/** The services in the order their metrics ports follow METRICS_PORT_BASE. */
export const SERVICES = /** @type {const} */ (["gateway", "auth", "renderer", "extractor", "jobs"]);

/**
 * @typedef {typeof STACK_DEFAULTS} StackPlacement
 * @typedef {{ host: string; port: number; variable: string; what?: string }} PlannedPort
 *   Where a server of the stack will listen, the variable that chooses its port, and what it is.
 */

/**
 * Every port the stack will listen on, each named for what it is.
 * @param {StackPlacement} placement
 * @returns {PlannedPort[]}
 */
export function plannedPorts(placement) {
  const grpc = (/** @type {string} */ service, /** @type {number} */ port, /** @type {string} */ variable) => ({
    host: placement.GRPC_HOST,
    port,
    variable,
    what: `${service}'s gRPC port`,
  });
  return [
    { host: placement.HOST, port: placement.PORT, variable: "PORT", what: "the gateway's HTTP port" },
    grpc("auth", placement.AUTH_GRPC_PORT, "AUTH_GRPC_PORT"),
    grpc("the renderer", placement.RENDERER_GRPC_PORT, "RENDERER_GRPC_PORT"),
    grpc("the extractor", placement.EXTRACTOR_GRPC_PORT, "EXTRACTOR_GRPC_PORT"),
    grpc("the jobs worker", placement.JOBS_GRPC_PORT, "JOBS_GRPC_PORT"),
    ...SERVICES.map((service, i) => ({
      host: placement.METRICS_HOST,
      port: placement.METRICS_PORT_BASE + i,
      variable: i === 0 ? "METRICS_PORT_BASE" : `METRICS_PORT_BASE+${i}`,
      what: `the ${service}'s metrics port`,
    })),
  ];
}

/**
 * Those of `planned` that something else holds now (a listen on them fails with EADDRINUSE).
 * @param {PlannedPort[]} planned
 * @returns {Promise<PlannedPort[]>}
 */
export async function portsInUse(planned) {
  const taken = await Promise.all(
    planned.map(
      ({ host, port }) =>
        new Promise((resolve, reject) => {
          const server = createServer();
          server.once("error", (/** @type {NodeJS.ErrnoException} */ error) =>
            error.code === "EADDRINUSE" ? resolve(true) : reject(error),
          );
          server.listen(port, host, () => server.close(() => resolve(false)));
        }),
    ),
  );
  return planned.filter((_, i) => taken[i]);
}

const PORT_VARIABLES =
  "PORT, AUTH_GRPC_PORT, RENDERER_GRPC_PORT, EXTRACTOR_GRPC_PORT, JOBS_GRPC_PORT and METRICS_PORT_BASE";

/**
 * Why the stack cannot start as placed, in one sentence; undefined when its ports and data directory are free.
 * The data directory's lock is only looked at here: start.js takes it (platform's lockDirectory, whose lock goes
 * stale after proper-lockfile's default 10 s, as check assumes).
 * @param {StackPlacement} placement
 * @returns {Promise<string | undefined>}
 */
export async function startRefusal(placement) {
  const busy = await portsInUse(plannedPorts(placement));
  if (busy.length > 0) {
    const list = busy.map((p) => `${p.port} (${p.what}, ${p.variable})`).join(", ");
    return `port${busy.length > 1 ? "s" : ""} ${list} in use, by another Winnow or another program; choose free ones with ${PORT_VARIABLES}.`;
  }
  const dataDir = path.resolve(REPO_ROOT, placement.WINNOW_DATA_DIR);
  if (await lockfile.check(dataDir, { realpath: false })) {
    return `the data directory ${dataDir} is in use by another process; give this stack its own with WINNOW_DATA_DIR.`;
  }
  return undefined;
}

/**
 * The placement the environment asks for, or the first variable that is not a valid value.
 * @param {NodeJS.ProcessEnv} env
 * @returns {StackPlacement | string}
 */
export function placementFrom(env) {
  /** @type {Record<string, string | number>} */
  const placement = { ...STACK_DEFAULTS };
  for (const [name, fallback] of Object.entries(STACK_DEFAULTS)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    if (typeof fallback === "string") {
      placement[name] = value;
      continue;
    }
    const highest = name === "METRICS_PORT_BASE" ? 65531 : 65535; // the base and the next four
    if (/^\d+$/.test(value) && Number(value) <= highest) placement[name] = Number(value);
    else return `${name} must be a port number (0-${highest}), not "${value}".`;
  }
  return /** @type {StackPlacement} */ (placement);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const placement = placementFrom(process.env);
  const refusal = typeof placement === "string" ? placement : await startRefusal(placement);
  if (refusal) {
    console.error(`Winnow did not start: ${refusal}`);
    process.exit(1);
  }
}

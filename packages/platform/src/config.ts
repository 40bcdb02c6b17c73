import { z } from "zod";
import { MIN_TOKEN_LENGTH } from "./caller-credentials.js";
import { parseEgressAllowlist } from "./egress-guard.js";

/** Thrown when the environment does not hold a valid configuration; the message names every bad variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads a service's configuration from environment variables, validated by a
 * zod object whose keys are the variable names. Fails at start-up with one
 * message naming every bad variable, rather than at first use.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<S>> {
  // An empty string means "unset": shells and compose files often export VAR= .
  const input: Record<string, string> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const result = z.object(shape).safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "?");
    const got = input[name];
    const shown = got === undefined ? "unset" : `got ${JSON.stringify(isSecretName(name) ? "<redacted>" : got)}`;
    return `  ${name}: ${issue.message} (${shown})`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
}

function isSecretName(name: string): boolean {
  return /KEY|SECRET|PASSWORD|TOKEN|DATABASE_URL|REDIS_URL/.test(name);
}

function wholeNumber(min: number, max: number) {
  return z.coerce
    .number({ message: "must be a number" })
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);
}

/**
 * A secret that rotates without downtime: one value, or during a rotation several separated by commas. The first is
 * the one this process sends, signs or seals with; every one is accepted. Rolling a new value in: give every
 * accepting process "old,new", then every process "new,old", then "new" alone (docs/security.md).
 */
export interface RotatingSecret {
  current: string;
  accepted: readonly string[];
}

/** Reusable variable types, with messages that say what is expected. */
function sharedSecret(what: string) {
  const each = `at least ${MIN_TOKEN_LENGTH} characters (e.g. openssl rand -base64 32; npm start generates it)`;
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `is required: ${what}, ${each}` : "must be text"),
    })
    .transform((value, ctx): RotatingSecret => {
      const accepted = value.split(",").map((part) => part.trim());
      if (accepted.some((part) => part.length < MIN_TOKEN_LENGTH)) {
        ctx.addIssue({
          code: "custom",
          message: `must be at least ${MIN_TOKEN_LENGTH} characters (e.g. openssl rand -base64 32); during a rotation, several such values separated by commas`,
        });
        return z.NEVER;
      }
      return { current: accepted[0] as string, accepted };
    });
}

export const env = {
  port: (fallback: number) =>
    z.coerce
      .number({ message: "must be a port number" })
      .int("must be a whole number")
      .min(0, "must be between 0 and 65535")
      .max(65535, "must be between 0 and 65535")
      .default(fallback),
  positiveInt: (fallback: number, max = Number.MAX_SAFE_INTEGER) => wholeNumber(1, max).default(fallback),
  nonNegativeInt: (fallback: number, max = Number.MAX_SAFE_INTEGER) => wholeNumber(0, max).default(fallback),
  /** Without a default: add `.default(…)`, or `.optional()` where unset means something of its own. */
  wholeNumber: (min: number, max = Number.MAX_SAFE_INTEGER) => wholeNumber(min, max),
  host: (fallback: string) => z.string().min(1).default(fallback),
  /** A gRPC target: host:port, or a full target such as dns:///svc:50051. */
  grpcTarget: (fallback: string) =>
    z
      .string()
      .regex(/^([a-z]+:\/\/\/?)?[^\s/]+:\d{1,5}$/, "must be host:port or a gRPC target such as dns:///host:port")
      .default(fallback),
  url: () => z.url({ message: "must be an absolute URL", protocol: /^https?$/ }),
  /** A Postgres server's address, DATABASE_URL-style. */
  postgresUrl: () => z.url({ protocol: /^postgres(ql)?$/, message: "must be a postgres:// or postgresql:// URL" }),
  /** A caller token of internal gRPC (caller-credentials.ts); required: a service never runs open. */
  callerToken: () => sharedSecret("the shared secret of internal gRPC calls"),
  /** A secret shared between services, `what` it is for said when it is missing. */
  sharedSecret: (what: string) => sharedSecret(what),
  boolean: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0", "yes", "no"], { message: "must be true or false" })
      .transform((v) => v === "true" || v === "1" || v === "yes")
      .default(fallback),
  /** WINNOW_EGRESS_ALLOW: what the egress guard lets through although it is not public (egress-guard.ts). */
  egressAllowlist: () =>
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        try {
          return parseEgressAllowlist(value);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
          return z.NEVER;
        }
      }),
  logLevel: () =>
    z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
        message: "must be one of fatal, error, warn, info, debug, trace, silent",
      })
      .default("info"),
};

/** loadConfig for a process's start: a bad configuration prints its message (no stack trace) and exits 1. */
export function loadConfigOrExit<S extends z.ZodRawShape>(shape: S, env?: NodeJS.ProcessEnv): z.infer<z.ZodObject<S>> {
  try {
    return loadConfig(shape, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

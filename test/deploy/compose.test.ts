/**
 * deploy/compose.yaml without Docker: read as compose reads it (YAML merge keys, ${...}
 * interpolated from deploy/.env.example), then each service's environment checked against
 * the configuration that service validates at start-up.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import { TEST_TOKEN_ENV } from "../support/caller-tokens.js";
import { firstBlockUnder } from "../support/doc-blocks.js";
import { COMPONENTS, loadServiceConfig, requiredVariables, unknownVariables } from "./service-config.js";

const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../deploy");
const composeSource = readFileSync(path.join(DEPLOY, "compose.yaml"), "utf8");

/** An env file as compose reads it: KEY=VALUE lines, # comments. */
const readEnvFile = (file: string) =>
  new Map(
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)] as const),
  );
const envFile = readEnvFile(path.join(DEPLOY, ".env.example"));

/**
 * deploy/.env as an operator makes it: the deployment guide's own lines that write it (its "One host" block up to
 * `docker compose`), run as written in a copy of the repository's deploy folder.
 */
const guideBlock = (await firstBlockUnder(REPO_ROOT, "deploy/README.md", "2. One host: Docker Compose")).split("\n");
const GUIDE_LINES = guideBlock.slice(
  0,
  guideBlock.findIndex((line) => line.startsWith("docker compose")),
);
const guideEnv = (() => {
  const dir = mkdtempSync(path.join(tmpdir(), "winnow-guide-"));
  try {
    mkdirSync(path.join(dir, "deploy"));
    copyFileSync(path.join(DEPLOY, ".env.example"), path.join(dir, "deploy/.env.example"));
    execFileSync("bash", ["-euo", "pipefail", "-c", GUIDE_LINES.join("\n")], { cwd: dir });
    return readEnvFile(path.join(dir, "deploy/.env"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

const REFERENCE = /\$\{([A-Z_][A-Z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;

/** Compose interpolation: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR?error}. */
function interpolate(text: string, env: Map<string, string>): string {
  return text.replace(REFERENCE, (_all, name: string, operator: string | undefined, operand: string) => {
    const value = env.get(name);
    const missing = operator?.startsWith(":") ? !value : value === undefined;
    if (!missing) return value!;
    if (operator?.endsWith("?")) throw new Error(`\${${name}}: ${operand}`);
    return operator ? operand : "";
  });
}

type ComposeService = {
  environment?: Record<string, string | number | null>;
  build?: { context: string; target: string };
  networks?: string[];
  [key: string]: any;
};
/** The env file as the guide's lines fill it in: the caller tokens and the page signing key generated. */
const filledIn = guideEnv;
const compose = parse(interpolate(composeSource, filledIn), { merge: true }) as {
  services: Record<string, ComposeService>;
  networks: Record<string, { internal?: boolean } | null>;
};
/** A service's environment; `KEY:` with nothing after it is null, which compose leaves unset. */
const environment = (name: string) =>
  Object.fromEntries(
    Object.entries(compose.services[name]!.environment ?? {})
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, String(v)]),
  );
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)![1]);

describe("compose", () => {
  it("runs the five services with Postgres, Redis, an OpenTelemetry collector and Jaeger", () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [...COMPONENTS, "postgres", "redis", "otel-collector", "jaeger"].sort(),
    );
  });

  it("starts from the deployment guide's own lines: they fill in every secret compose requires", () => {
    expect(GUIDE_LINES.length).toBeGreaterThanOrEqual(2);
    const secrets = [...Object.keys(TEST_TOKEN_ENV), "WINNOW_PAGE_SIGNING_KEY"];
    for (const secret of secrets) {
      expect(envFile.get(secret), `${secret} in the example`).toBe("");
      expect(Buffer.from(guideEnv.get(secret) ?? "", "base64").length, `${secret} generated`).toBe(32);
    }
    expect(new Set(secrets.map((secret) => guideEnv.get(secret))).size, "each secret its own").toBe(secrets.length);
    expect(() => interpolate(composeSource, guideEnv)).not.toThrow();
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the title names compose's ${VAR} references.
  it("takes every ${...} from the env file, and the env file holds nothing unused", () => {
    const referenced = new Set([...composeSource.matchAll(REFERENCE)].map((m) => m[1]!));
    expect([...referenced].filter((name) => !envFile.has(name))).toEqual([]);
    expect([...envFile.keys()].filter((name) => !referenced.has(name))).toEqual([]);
    // A required one left empty stops compose with its message.
    expect(() => interpolate(composeSource, new Map([...filledIn, ["POSTGRES_PASSWORD", ""]]))).toThrow(
      /POSTGRES_PASSWORD/,
    );
    // The example as copied, tokens not generated yet, is refused: no stack runs with known or missing tokens.
    for (const token of Object.keys(TEST_TOKEN_ENV)) {
      expect(envFile.get(token), token).toBe("");
      expect(() => interpolate(composeSource, new Map([...filledIn, [token, ""]]))).toThrow(
        `\${${token}}: set ${token} in deploy/.env (openssl rand -base64 32)`,
      );
    }
  });

  it("sets for each service only variables it validates, every required one, and a configuration it accepts", () => {
    for (const component of COMPONENTS) {
      const env = environment(component);
      expect(unknownVariables(component, Object.keys(env)), component).toEqual([]);
      for (const required of requiredVariables(component)) expect(Object.keys(env), component).toContain(required);
      const config = loadServiceConfig(component, env);
      expect(config[component === "gateway" ? "HOST" : "GRPC_HOST"], `${component} listens on every interface`).toBe(
        "0.0.0.0",
      );
      expect(compose.services[component]!.build).toEqual({ context: "..", target: component });
      expect(compose.services[component]!.read_only).toBe(true);
      expect(compose.services[component]!.cap_drop).toEqual(["ALL"]);
    }
  });

  it("points the gateway and the jobs worker at the backends' compose names and configured ports", () => {
    const gateway = loadServiceConfig("gateway", environment("gateway"));
    const jobs = loadServiceConfig("jobs", environment("jobs"));
    expect(gateway.JOBS_ADDR).toBe(`jobs:${jobs.GRPC_PORT}`);
    for (const backend of ["auth", "renderer", "extractor"] as const) {
      const port = loadServiceConfig(backend, environment(backend)).GRPC_PORT;
      expect(jobs[`${backend.toUpperCase()}_ADDR`]).toBe(`${backend}:${port}`);
      expect(gateway[`${backend.toUpperCase()}_ADDR`]).toBe(`${backend}:${port}`);
    }
    expect(compose.services.gateway!.ports).toEqual([`${envFile.get("WINNOW_PORT")}:${gateway.PORT}`]);
  });

  it("gives auth the compose Postgres, and stops services only after their longest call", () => {
    const databaseUrl = new URL(String(loadServiceConfig("auth", environment("auth")).DATABASE_URL));
    const postgres = environment("postgres");
    expect([databaseUrl.hostname, databaseUrl.username, databaseUrl.password, databaseUrl.pathname]).toEqual([
      "postgres",
      postgres.POSTGRES_USER,
      postgres.POSTGRES_PASSWORD,
      `/${postgres.POSTGRES_DB}`,
    ]);
    expect(compose.services.auth!.depends_on.postgres.condition).toBe("service_healthy");
    const requestTimeoutMs = Number(loadServiceConfig("gateway", environment("gateway")).REQUEST_TIMEOUT_MS);
    for (const component of COMPONENTS) {
      const drainMs = Number(loadServiceConfig(component, environment(component)).SHUTDOWN_GRACE_MS);
      expect(drainMs).toBeGreaterThanOrEqual(requestTimeoutMs);
      expect(seconds(compose.services[component]!.stop_grace_period) * 1000).toBeGreaterThan(drainMs);
    }
  });

  it("sends every service's traces to the collector, and the collector's to Jaeger", () => {
    const collector = compose.services["otel-collector"]!;
    const [configFile, mountedAt] = (collector.volumes[0] as string).split(":");
    expect(collector.command).toContain(`--config=${mountedAt}`);
    const config = parse(readFileSync(path.join(DEPLOY, configFile!), "utf8"));
    const httpPort = /:(\d+)$/.exec(config.receivers.otlp.protocols.http.endpoint)![1];
    for (const component of COMPONENTS) {
      expect(environment(component).OTEL_EXPORTER_OTLP_ENDPOINT).toBe(`http://otel-collector:${httpPort}`);
    }
    const pipeline = config.service.pipelines.traces;
    for (const [section, names] of [
      ["receivers", pipeline.receivers],
      ["processors", pipeline.processors],
      ["exporters", pipeline.exporters],
    ]) {
      for (const name of names) expect(config[section], `${section}.${name}`).toHaveProperty([name]);
    }
    const exporter = config.exporters[pipeline.exporters[0]];
    expect(exporter.endpoint).toMatch(/^jaeger:4317$/);
    expect(environment("jaeger").COLLECTOR_OTLP_ENABLED).toBe("true");
  });

  it("has the collector scrape every service's metrics port and serve them on the host's loopback", () => {
    const collector = compose.services["otel-collector"]!;
    const config = parse(readFileSync(path.join(DEPLOY, (collector.volumes[0] as string).split(":")[0]!), "utf8"));
    const targets = config.receivers.prometheus.config.scrape_configs.flatMap((job: any) =>
      job.static_configs.flatMap((c: any) => c.targets),
    );
    for (const component of COMPONENTS) {
      const { METRICS_HOST, METRICS_PORT } = loadServiceConfig(component, environment(component));
      expect(METRICS_HOST, component).toBe("0.0.0.0");
      expect(targets).toContain(`${component}:${METRICS_PORT}`);
    }
    const pipeline = config.service.pipelines.metrics;
    expect(pipeline.receivers).toEqual(["prometheus"]);
    for (const [section, names] of [
      ["processors", pipeline.processors],
      ["exporters", pipeline.exporters],
    ]) {
      for (const name of names) expect(config[section], `${section}.${name}`).toHaveProperty([name]);
    }
    const exporterPort = /:(\d+)$/.exec(config.exporters[pipeline.exporters[0]].endpoint)![1];
    expect(collector.ports).toEqual([`127.0.0.1:${envFile.get("WINNOW_METRICS_PORT")}:${exporterPort}`]);
  });

  it("mounts only files that exist", () => {
    for (const service of Object.values(compose.services)) {
      for (const volume of (service.volumes ?? []) as string[]) {
        const source = volume.split(":")[0]!;
        if (source.startsWith(".")) expect(existsSync(path.join(DEPLOY, source)), source).toBe(true);
      }
    }
  });

  it("gives each service only the caller tokens its role needs, matching what the gateway sends", () => {
    const tokens = (name: string) =>
      Object.keys(environment(name))
        .filter((variable) => variable.endsWith("_TOKEN"))
        .sort();
    expect(tokens("gateway")).toEqual(["WINNOW_GATEWAY_TOKEN", "WINNOW_SERVICE_TOKEN"]);
    expect(tokens("jobs")).toEqual(["WINNOW_GATEWAY_TOKEN", "WINNOW_SERVICE_TOKEN"]);
    expect(tokens("auth")).toEqual(["WINNOW_ADMIN_TOKEN", "WINNOW_GATEWAY_TOKEN"]);
    expect(tokens("renderer")).toEqual(["WINNOW_SERVICE_TOKEN"]);
    expect(tokens("extractor")).toEqual(["WINNOW_SERVICE_TOKEN"]);
    const gateway = loadServiceConfig("gateway", environment("gateway"));
    expect(loadServiceConfig("auth", environment("auth")).WINNOW_GATEWAY_TOKEN).toEqual(gateway.WINNOW_GATEWAY_TOKEN);
    expect(loadServiceConfig("jobs", environment("jobs")).WINNOW_GATEWAY_TOKEN).toEqual(gateway.WINNOW_GATEWAY_TOKEN);
    for (const backend of ["renderer", "extractor"] as const) {
      expect(loadServiceConfig(backend, environment(backend)).WINNOW_SERVICE_TOKEN).toEqual(
        gateway.WINNOW_SERVICE_TOKEN,
      );
    }
  });

  it("gives the page signing key to the renderer and the extractor only", () => {
    const holders = ["gateway", "jobs", "auth", "renderer", "extractor"].filter(
      (name) => environment(name).WINNOW_PAGE_SIGNING_KEY !== undefined,
    );
    expect(holders).toEqual(["renderer", "extractor"]);
    expect(loadServiceConfig("renderer", environment("renderer")).WINNOW_PAGE_SIGNING_KEY).toEqual(
      loadServiceConfig("extractor", environment("extractor")).WINNOW_PAGE_SIGNING_KEY,
    );
  });

  describe("networks", () => {
    const networksOf = (name: string) => compose.services[name]!.networks ?? ["default"];
    /** Compose lets two containers talk when they share a network. */
    const reach = (a: string, b: string) => networksOf(a).some((n) => networksOf(b).includes(n));
    const isInternal = (network: string) => compose.networks[network]?.internal === true;
    const names = () => Object.keys(compose.services);

    it("puts every service on declared networks only, and uses every network", () => {
      const used = new Set(names().flatMap(networksOf));
      expect([...used].sort()).toEqual(Object.keys(compose.networks).sort());
    });

    it("lets the renderer reach only its callers (the gateway, the jobs worker) and the collector, and the internet", () => {
      expect(
        names()
          .filter((name) => name !== "renderer" && reach("renderer", name))
          .sort(),
      ).toEqual(["gateway", "jobs", "otel-collector"]);
      expect(
        networksOf("renderer").some((n) => !isInternal(n)),
        "a way out to the pages",
      ).toBe(true);
    });

    it("keeps Postgres, Redis and auth on the internal backend network, reached by the services that use them", () => {
      for (const name of ["postgres", "redis", "auth"]) {
        expect(networksOf(name).every(isInternal), name).toBe(true);
        expect(reach("renderer", name), name).toBe(false);
      }
      for (const [caller, callee] of [
        ["gateway", "auth"],
        ["gateway", "redis"],
        ["gateway", "extractor"],
        ["gateway", "jobs"],
        ["jobs", "auth"],
        ["jobs", "extractor"],
        ["jobs", "postgres"],
        ["jobs", "redis"],
        ["auth", "postgres"],
        ["extractor", "postgres"],
      ]) {
        expect(reach(caller!, callee!), `${caller} -> ${callee}`).toBe(true);
      }
    });

    it("lets the collector reach every service it scrapes and receives from, and Jaeger", () => {
      for (const name of [...COMPONENTS, "jaeger"]) expect(reach("otel-collector", name), name).toBe(true);
    });

    it("gives the extractor a way out to its model endpoint that nothing else shares", () => {
      const outward = networksOf("extractor").filter((n) => !isInternal(n));
      expect(outward.length).toBeGreaterThan(0);
      for (const network of outward) {
        expect(names().filter((name) => networksOf(name).includes(network))).toEqual(["extractor"]);
      }
    });
  });
});

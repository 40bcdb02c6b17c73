/**
 * The Helm chart with the real helm (helm.ts): `helm lint`, values.yaml against
 * values.schema.json, every rendered object against the Kubernetes API schemas
 * (kubernetes-models' validators), and the objects of `helm template` checked as Kubernetes
 * would read them: wiring, probes, pod security, shutdown timing, secrets, autoscaling and
 * which pod the NetworkPolicies let talk to which.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Ajv } from "ajv";
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../../scripts/src/stack.js";
import {
  CHART_DIR,
  defaultValues,
  helm,
  type K8sObject,
  renderChart,
  renderNotes,
  type Values,
  withValues,
} from "./chart.js";
import { runHelm } from "./helm.js";
import {
  COMPONENTS,
  type Component,
  knownVariables,
  loadServiceConfig,
  requiredVariables,
  unknownVariables,
} from "./service-config.js";

const schema = JSON.parse(readFileSync(path.join(CHART_DIR, "values.schema.json"), "utf8"));
const validateValues = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** How many objects the deployment guide says `helm template` renders with the default values. */
const GUIDE_OBJECTS = Number(
  /# (\d+) objects with the default values/.exec(readFileSync(path.join(REPO_ROOT, "deploy/README.md"), "utf8"))?.[1],
);
const objects = renderChart();
const ofKind = (list: K8sObject[], kind: string) => list.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const deployment = (component: Component) => named("Deployment", `prod-winnow-${component}`);
const container = (component: Component) => deployment(component).spec.template.spec.containers[0];
const BACKENDS = ["auth", "renderer", "extractor"] as const;

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}
const envOf = (component: Component): EnvVar[] => container(component).env;

/** existingSecret as the comment in values.yaml has operators create it. */
const SECRET: Record<string, string> = {
  "database-url": "postgres://winnow:secret@postgres:5432/winnow",
  "encryption-key": Buffer.alloc(32, 7).toString("base64"),
  "llm-api-key": "sk-test",
  "redis-url": "redis://redis:6379",
  "gateway-token": "gateway-token-from-the-secret-0123456789",
  "admin-token": "admin-token-from-the-secret-0123456789ab",
  "service-token": "service-token-from-the-secret-0123456789",
};
/** The variables as the process sees them: plain values, and secrets from SECRET (downward API ones left out). */
const processEnv = (component: Component) =>
  Object.fromEntries(
    envOf(component).flatMap((v) => {
      const value = v.value ?? (v.valueFrom?.secretKeyRef && SECRET[v.valueFrom.secretKeyRef.key]);
      return value === undefined ? [] : [[v.name, value]];
    }),
  );

describe("YAML files", () => {
  it("every YAML file under deploy/ but the chart's templates parses cleanly (no duplicate keys, no errors)", () => {
    const deploy = path.resolve(CHART_DIR, "../..");
    const files = (readdirSync(deploy, { recursive: true }) as string[]).filter(
      (file) => /\.ya?ml$/.test(file) && !file.split(path.sep).includes("templates"),
    );
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      for (const document of parseAllDocuments(readFileSync(path.join(deploy, file), "utf8"), { uniqueKeys: true })) {
        expect(
          document.errors.map((e) => e.message),
          file,
        ).toEqual([]);
        expect(
          document.warnings.map((w) => w.message),
          file,
        ).toEqual([]);
      }
    }
  });
});

/** Values an operator would install with: an image registry and tag, an Ingress with TLS, a collector, Redis. */
function productionValues(): Values {
  const values = defaultValues();
  Object.assign(values.image, { registry: "registry.example.com", tag: "0.1.0" });
  Object.assign(values.gateway.ingress, {
    enabled: true,
    className: "nginx",
    tls: [{ hosts: ["api.example.com"], secretName: "tls" }],
  });
  values.gateway.ingress.hosts[0].host = "api.example.com";
  values.gateway.extraEgress = [
    {
      to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "redis" } } }],
      ports: [{ protocol: "TCP", port: 6379 }],
    },
  ];
  values.networkPolicy.gatewayIngressFrom = [
    { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } } },
  ];
  values.otel.endpoint = "http://otel-collector.observability:4318";
  return values;
}

describe("helm lint", () => {
  it.each([
    ["the default values", defaultValues],
    ["production-like values", productionValues],
  ])("passes --strict with %s", (_what, values) => {
    const output = withValues(values(), (args) => runHelm(helm, ["lint", CHART_DIR, "--strict", ...args]));
    expect(output).toContain("1 chart(s) linted, 0 chart(s) failed");
  });
});

describe("Kubernetes API schemas", () => {
  const require = createRequire(import.meta.url);
  /** kubernetes-models' model for an object's apiVersion and kind (e.g. kubernetes-models/apps/v1/Deployment). */
  const modelOf = (object: K8sObject) => {
    const module = require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<
      string,
      new (
        data: unknown,
      ) => { validate(): void }
    >;
    return module[object.kind]!;
  };

  it.each([
    ["the default values", defaultValues],
    ["production-like values", productionValues],
  ])("accept every object rendered with %s", (_what, values) => {
    const rendered = renderChart(values());
    if (values === defaultValues) expect(rendered.length, "the count deploy/README.md states").toBe(GUIDE_OBJECTS);
    else expect(rendered.length).toBeGreaterThanOrEqual(GUIDE_OBJECTS);
    for (const object of rendered) {
      expect(() => new (modelOf(object))(object).validate(), `${object.kind} ${object.metadata.name}`).not.toThrow();
    }
  });

  it("refuse an object Kubernetes would refuse", () => {
    const broken = structuredClone(objects.find((o) => o.kind === "Deployment")!);
    broken.spec.template.spec.containers[0].ports[0].containerPort = "http";
    expect(() => new (modelOf(broken))(broken).validate()).toThrow(/containerPort must be integer/);
  });
});

describe("values", () => {
  it("values.yaml satisfies values.schema.json", () => {
    expect(validateValues(defaultValues()), JSON.stringify(validateValues.errors)).toBe(true);
  });

  it.each([
    ["a misspelt service block", (v: Values) => (v.gatway = {}), "additionalProperties"],
    ["replicas as text", (v: Values) => (v.renderer.replicas = "two"), "/renderer/replicas"],
    [
      "a secretEnv entry without its key",
      (v: Values) => (v.auth.secretEnv.DATABASE_URL = { name: "db" }),
      "/auth/secretEnv/DATABASE_URL",
    ],
    ["an env name that is not a variable", (v: Values) => (v.extractor.env["llm-model"] = "x"), "/extractor/env"],
    ["the renderer without /dev/shm", (v: Values) => delete v.renderer.shmSizeLimit, "shmSizeLimit"],
  ])("rejects %s", (_what, change, where) => {
    const values = defaultValues();
    change(values);
    expect(validateValues(values)).toBe(false);
    expect(JSON.stringify(validateValues.errors)).toContain(where);
  });

  it("lists as each service's env and secretEnv names exactly the variables its config validates", () => {
    for (const component of COMPONENTS) {
      const listed = Object.keys(schema.definitions[`${component}Variables`].properties);
      expect(listed.sort(), component).toEqual(knownVariables(component).sort());
    }
  });

  it.each([
    ["a misspelt env name", (v: Values) => (v.renderer.env.RENDER_MAX_PAGE = "8"), "RENDER_MAX_PAGE"],
    ["another service's variable", (v: Values) => (v.gateway.env.LLM_MODEL = "gpt-4o"), "LLM_MODEL"],
    [
      "a misspelt secretEnv name",
      (v: Values) => (v.auth.secretEnv.DATABASE_ULR = { key: "database-url" }),
      "DATABASE_ULR",
    ],
  ])("helm template and helm lint refuse %s, naming it", (_what, change, name) => {
    const values = defaultValues();
    change(values);
    expect(() => renderChart(values)).toThrow(name);
    // helm lint fails with a summary on stderr, its findings on stdout.
    const lint = (() => {
      try {
        withValues(values, (args) => runHelm(helm, ["lint", CHART_DIR, "--strict", ...args]));
      } catch (error) {
        return (error as { stdout: string }).stdout;
      }
      throw new Error("helm lint passed");
    })();
    expect(lint).toContain(name);
  });

  it("helm template accepts OpenTelemetry's own variables in env", () => {
    const values = defaultValues();
    values.extractor.env.OTEL_TRACES_SAMPLER = "parentbased_traceidratio";
    expect(() => renderChart(values)).not.toThrow();
  });
});

describe("rendered objects", () => {
  it("renders one Deployment, Service and PodDisruptionBudget per service, HPAs for gateway, renderer and extractor", () => {
    const names = (kind: string) =>
      ofKind(objects, kind)
        .map((o) => o.metadata.name)
        .sort();
    const all = COMPONENTS.map((c) => `prod-winnow-${c}`).sort();
    expect(names("Deployment")).toEqual(all);
    expect(names("Service")).toEqual(all);
    expect(names("PodDisruptionBudget")).toEqual(all);
    expect(names("HorizontalPodAutoscaler")).toEqual([
      "prod-winnow-extractor",
      "prod-winnow-gateway",
      "prod-winnow-renderer",
    ]);
    expect(names("Ingress")).toEqual([]);
    for (const hpa of ofKind(objects, "HorizontalPodAutoscaler")) {
      const target = named("Deployment", hpa.spec.scaleTargetRef.name);
      expect(target.spec.replicas, "an HPA owns the replica count").toBeUndefined();
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    }
    expect(deployment("auth").spec.replicas).toBe(2);
    // The jobs worker scales on its queue's depth (KEDA, deploy/README.md), not on CPU: its own replica count.
    expect(deployment("jobs").spec.replicas).toBe(2);
  });

  it("selects each service's pods with its Service, PodDisruptionBudget and Deployment selector", () => {
    for (const component of COMPONENTS) {
      const podLabels = deployment(component).spec.template.metadata.labels;
      for (const selector of [
        deployment(component).spec.selector.matchLabels,
        named("Service", `prod-winnow-${component}`).spec.selector,
        named("PodDisruptionBudget", `prod-winnow-${component}`).spec.selector.matchLabels,
      ]) {
        expect(podLabels).toMatchObject(selector);
        // Selecting exactly one component: no two components share a selector.
        expect(selector["app.kubernetes.io/component"]).toBe(component);
      }
    }
  });

  it("gives the gRPC backends headless Services and points the gateway and the jobs worker at them", () => {
    const gatewayConfig = loadServiceConfig("gateway", processEnv("gateway"));
    const jobsConfig = loadServiceConfig("jobs", processEnv("jobs"));
    for (const backend of [...BACKENDS, "jobs"] as const) {
      const service = named("Service", `prod-winnow-${backend}`);
      expect(service.spec.clusterIP).toBe("None");
      const port = service.spec.ports[0];
      const config = loadServiceConfig(backend, processEnv(backend));
      expect(port.port).toBe(config.GRPC_PORT);
      expect(container(backend).ports).toContainEqual(
        expect.objectContaining({ name: port.targetPort, containerPort: config.GRPC_PORT }),
      );
      expect(gatewayConfig[`${backend.toUpperCase()}_ADDR`]).toBe(`${service.metadata.name}:${port.port}`);
      if (backend !== "jobs") {
        expect(jobsConfig[`${backend.toUpperCase()}_ADDR`]).toBe(`${service.metadata.name}:${port.port}`);
      }
    }
    const gateway = named("Service", "prod-winnow-gateway");
    expect(gateway.spec.clusterIP).toBeUndefined();
    expect(container("gateway").ports).toContainEqual(
      expect.objectContaining({ name: gateway.spec.ports[0].targetPort, containerPort: gatewayConfig.PORT }),
    );
  });

  it("sets for each service only variables it validates, every required one, and a configuration it accepts", () => {
    for (const component of COMPONENTS) {
      const names = envOf(component).map((v) => v.name);
      expect(unknownVariables(component, names), component).toEqual([]);
      expect(new Set(names).size, `${component}: a variable set twice`).toBe(names.length);
      for (const required of requiredVariables(component)) expect(names, component).toContain(required);
      const config = loadServiceConfig(component, processEnv(component));
      expect(config[component === "gateway" ? "HOST" : "GRPC_HOST"], `${component} listens on every interface`).toBe(
        "0.0.0.0",
      );
    }
  });

  it("reads secrets from the existing Secret", () => {
    const secretRefs = (component: Component) =>
      Object.fromEntries(
        envOf(component)
          .filter((v) => v.valueFrom?.secretKeyRef)
          .map((v) => [v.name, v.valueFrom!.secretKeyRef]),
      );
    expect(secretRefs("auth")).toEqual({
      DATABASE_URL: { name: "winnow", key: "database-url" },
      WINNOW_ENCRYPTION_KEY: { name: "winnow", key: "encryption-key" },
      WINNOW_GATEWAY_TOKEN: { name: "winnow", key: "gateway-token" },
      WINNOW_ADMIN_TOKEN: { name: "winnow", key: "admin-token" },
    });
    expect(secretRefs("gateway")).toEqual({
      REDIS_URL: { name: "winnow", key: "redis-url", optional: true },
      WINNOW_GATEWAY_TOKEN: { name: "winnow", key: "gateway-token" },
      WINNOW_SERVICE_TOKEN: { name: "winnow", key: "service-token" },
      // The scrape cache without Redis, shared by every replica, beside auth's tables.
      GATEWAY_DATABASE_URL: { name: "winnow", key: "database-url" },
    });
    expect(secretRefs("jobs")).toEqual({
      REDIS_URL: { name: "winnow", key: "redis-url", optional: true },
      WINNOW_GATEWAY_TOKEN: { name: "winnow", key: "gateway-token" },
      WINNOW_SERVICE_TOKEN: { name: "winnow", key: "service-token" },
      // Batch jobs and their results, shared by every replica.
      GATEWAY_DATABASE_URL: { name: "winnow", key: "database-url" },
    });
    expect(secretRefs("extractor")).toEqual({
      LLM_API_KEY: { name: "winnow", key: "llm-api-key", optional: true },
      WINNOW_SERVICE_TOKEN: { name: "winnow", key: "service-token" },
      WINNOW_PAGE_SIGNING_KEY: { name: "winnow", key: "page-signing-key", optional: true },
      // Learned templates, in the same database as auth's (tables of its own).
      DATABASE_URL: { name: "winnow", key: "database-url" },
    });
    expect(secretRefs("renderer")).toEqual({
      WINNOW_SERVICE_TOKEN: { name: "winnow", key: "service-token" },
      WINNOW_PAGE_SIGNING_KEY: { name: "winnow", key: "page-signing-key", optional: true },
    });
    expect(
      objects.filter((o) => o.kind === "Secret"),
      "the chart creates no Secret",
    ).toEqual([]);
  });

  it("gives the gateway the tokens each backend accepts, and the renderer and the extractor none that opens auth", () => {
    const config = (component: Component) => loadServiceConfig(component, processEnv(component));
    const gateway = config("gateway");
    const auth = config("auth");
    // What the gateway sends to auth is auth's gateway role; what it sends to the others is their service token.
    expect(gateway.WINNOW_GATEWAY_TOKEN).toEqual(auth.WINNOW_GATEWAY_TOKEN);
    // The jobs worker calls auth as the gateway does, and takes the gateway's calls with the same token.
    expect(config("jobs").WINNOW_GATEWAY_TOKEN).toEqual(gateway.WINNOW_GATEWAY_TOKEN);
    expect(config("jobs").WINNOW_SERVICE_TOKEN).toEqual(gateway.WINNOW_SERVICE_TOKEN);
    expect(gateway.WINNOW_GATEWAY_TOKEN).not.toEqual(auth.WINNOW_ADMIN_TOKEN);
    for (const backend of ["renderer", "extractor"] as const) {
      expect(config(backend).WINNOW_SERVICE_TOKEN, backend).toEqual(gateway.WINNOW_SERVICE_TOKEN);
      const tokens = envOf(backend)
        .map((v) => v.name)
        .filter((name) => name.endsWith("_TOKEN"));
      expect(tokens, backend).toEqual(["WINNOW_SERVICE_TOKEN"]);
    }
    // Not even auth holds the service token, nor the gateway the admin's.
    expect(envOf("auth").map((v) => v.name)).not.toContain("WINNOW_SERVICE_TOKEN");
    expect(envOf("gateway").map((v) => v.name)).not.toContain("WINNOW_ADMIN_TOKEN");
    // A pod without its token stops at start-up, naming the variable.
    const { WINNOW_SERVICE_TOKEN: _dropped, ...withoutToken } = processEnv("renderer");
    expect(() => loadServiceConfig("renderer", withoutToken)).toThrow(/WINNOW_SERVICE_TOKEN: is required/);
    // The operator CLI's token, as the notes tell the operator to fetch it.
    expect(renderNotes()).toContain(
      "WINNOW_ADMIN_TOKEN=\"$(kubectl -n winnow get secret winnow -o jsonpath='{.data.admin-token}'",
    );
  });

  it("probes the backends with grpc.health.v1 and the gateway over HTTP", () => {
    for (const backend of BACKENDS) {
      const port = loadServiceConfig(backend, processEnv(backend)).GRPC_PORT;
      for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
        // No `service` field: the empty service name, which the servers set from their readiness.
        expect(container(backend)[probe], `${backend} ${probe}`).toMatchObject({ grpc: { port } });
        expect(container(backend)[probe].grpc.service).toBeUndefined();
      }
    }
    expect(container("gateway").livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(container("gateway").readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
  });

  it("runs every pod non-root, without capabilities, on a read-only root with writable scratch", () => {
    for (const component of COMPONENTS) {
      const pod = deployment(component).spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(container(component).securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      const mounts = container(component).volumeMounts as { name: string; mountPath: string }[];
      const volumes = new Map((pod.volumes as { name: string; emptyDir: unknown }[]).map((v) => [v.name, v]));
      expect(mounts.map((m) => m.mountPath)).toContain("/tmp");
      for (const mount of mounts) expect(volumes.get(mount.name)?.emptyDir, mount.name).toBeDefined();
    }
    const renderer = deployment("renderer").spec.template.spec;
    const shm = container("renderer").volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/dev/shm");
    expect(renderer.volumes.find((v: { name: string }) => v.name === shm.name).emptyDir.medium).toBe("Memory");
    // auth writes its dev key file under WINNOW_DATA_DIR: it must be on a writable mount.
    const dataDir = String(loadServiceConfig("auth", processEnv("auth")).WINNOW_DATA_DIR);
    expect(
      container("auth").volumeMounts.some((m: { mountPath: string }) => dataDir.startsWith(`${m.mountPath}/`)),
    ).toBe(true);
  });

  it("lets in-flight calls finish: grace > preStop + drain, drain >= the longest call", () => {
    const requestTimeoutMs = Number(loadServiceConfig("gateway", processEnv("gateway")).REQUEST_TIMEOUT_MS);
    for (const component of COMPONENTS) {
      const pod = deployment(component).spec.template.spec;
      const drainMs = Number(loadServiceConfig(component, processEnv(component)).SHUTDOWN_GRACE_MS);
      const [command, seconds] = container(component).lifecycle.preStop.exec.command;
      expect(command).toBe("sleep");
      expect(drainMs).toBeGreaterThanOrEqual(requestTimeoutMs);
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(seconds) * 1000 + drainMs);
    }
  });

  it("believes X-Forwarded-For from the one proxy hop in front (the Ingress controller), not from any client", () => {
    expect(loadServiceConfig("gateway", processEnv("gateway")).TRUST_PROXY).toBe(1);
  });

  it("names each service's traces from its pod's component label", () => {
    for (const component of COMPONENTS) {
      const serviceName = envOf(component).find((v) => v.name === "OTEL_SERVICE_NAME")!;
      const match = /^metadata\.labels\['(.+)'\]$/.exec(serviceName.valueFrom!.fieldRef!.fieldPath);
      expect(deployment(component).spec.template.metadata.labels[match![1]!]).toBe(component);
    }
    const withEndpoint = defaultValues();
    withEndpoint.otel.endpoint = "http://otel-collector.observability:4318";
    const gateway = renderChart(withEndpoint).find(
      (o) => o.metadata.name === "prod-winnow-gateway" && o.kind === "Deployment",
    )!;
    expect(gateway.spec.template.spec.containers[0].env).toContainEqual({
      name: "OTEL_EXPORTER_OTLP_ENDPOINT",
      value: "http://otel-collector.observability:4318",
    });
  });

  it("serves each service's metrics on the metrics port, announced to Prometheus by pod annotations", () => {
    const { port } = defaultValues().metrics;
    for (const component of COMPONENTS) {
      const config = loadServiceConfig(component, processEnv(component));
      expect({ host: config.METRICS_HOST, port: config.METRICS_PORT }, component).toEqual({ host: "0.0.0.0", port });
      expect(container(component).ports).toContainEqual({ name: "metrics", containerPort: port, protocol: "TCP" });
      expect(deployment(component).spec.template.metadata.annotations).toEqual({
        "prometheus.io/scrape": "true",
        "prometheus.io/port": String(port),
        "prometheus.io/path": "/metrics",
      });
    }
    const values = defaultValues();
    values.metrics.podAnnotations = false;
    values.renderer.podAnnotations = { team: "scraping" };
    const annotations = (component: Component) =>
      renderChart(values).find((o) => o.kind === "Deployment" && o.metadata.name === `prod-winnow-${component}`)!.spec
        .template.metadata.annotations;
    expect(annotations("renderer")).toEqual({ team: "scraping" });
    expect(annotations("gateway")).toBeUndefined();
  });

  it("adds an Ingress to the gateway Service when enabled", () => {
    const values = defaultValues();
    Object.assign(values.gateway.ingress, {
      enabled: true,
      className: "nginx",
      tls: [{ hosts: ["api.example.com"], secretName: "tls" }],
    });
    values.gateway.ingress.hosts[0].host = "api.example.com";
    const [ingress] = ofKind(renderChart(values), "Ingress");
    expect(ingress!.spec.ingressClassName).toBe("nginx");
    expect(ingress!.spec.rules[0].host).toBe("api.example.com");
    expect(ingress!.spec.rules[0].http.paths[0].backend.service).toEqual({
      name: "prod-winnow-gateway",
      port: { name: "http" },
    });
    expect(renderNotes(values)).toContain("https://api.example.com/scrape");
    expect(renderNotes()).toContain("port-forward svc/prod-winnow-gateway");
  });

  it("refuses several auth replicas without Postgres, or with the dev account on but no fixed dev key", () => {
    const noDatabase = defaultValues();
    noDatabase.auth.secretEnv.DATABASE_URL = null; // helm merges values over values.yaml: null removes a key
    expect(() => renderChart(noDatabase)).toThrow(/needs DATABASE_URL/);
    const devAccount = defaultValues();
    devAccount.auth.env.WINNOW_DEV_ACCOUNT = "true";
    expect(() => renderChart(devAccount)).toThrow(/fixed WINNOW_DEV_API_KEY/);
    devAccount.auth.secretEnv.WINNOW_DEV_API_KEY = { key: "dev-api-key" };
    expect(ofKind(renderChart(devAccount), "Deployment")).toHaveLength(COMPONENTS.length);
    expect(renderNotes(devAccount)).toContain("jsonpath='{.data.dev-api-key}'");
    devAccount.auth.replicas = 1;
    delete devAccount.auth.secretEnv.WINNOW_DEV_API_KEY;
    expect(ofKind(renderChart(devAccount), "Deployment")).toHaveLength(COMPONENTS.length);
  });

  it("refuses several jobs workers without Postgres: the batch store would be each one's own", () => {
    const noDatabase = defaultValues();
    noDatabase.jobs.secretEnv.GATEWAY_DATABASE_URL = null;
    expect(() => renderChart(noDatabase)).toThrow(/jobs with more than one replica needs GATEWAY_DATABASE_URL/);
    noDatabase.jobs.replicas = 1;
    expect(ofKind(renderChart(noDatabase), "Deployment")).toHaveLength(COMPONENTS.length);
  });

  it("has no dev account by default: customers sign up in the dashboard", () => {
    expect(envOf("auth")).toContainEqual({ name: "WINNOW_DEV_ACCOUNT", value: "false" });
    expect(renderNotes()).toContain("Sign up in the dashboard");
    expect(renderNotes()).not.toContain("dev-api-key");
  });
});

describe("network policies", () => {
  const policies = ofKind(objects, "NetworkPolicy");
  type Peer = { pod?: Record<string, string>; ip?: string };
  const podLabels = (component: Component) =>
    deployment(component).spec.template.metadata.labels as Record<string, string>;
  const selects = (
    selector: { matchLabels?: Record<string, string> } | undefined,
    labels: Record<string, string> | undefined,
  ) => labels !== undefined && Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const inCidr = (ip: string, cidr: string) => {
    const address = ipaddr.parse(ip);
    const range = ipaddr.parseCIDR(cidr);
    return address.kind() === range[0].kind() && address.match(range);
  };
  // One rule's peers: a pod (same namespace for podSelector alone) or an address by ipBlock.
  const peerMatches = (peers: any[] | undefined, peer: Peer) =>
    peers === undefined ||
    peers.some((p) =>
      p.ipBlock
        ? peer.ip !== undefined &&
          inCidr(peer.ip, p.ipBlock.cidr) &&
          !(p.ipBlock.except ?? []).some((c: string) => inCidr(peer.ip!, c))
        : peer.pod !== undefined &&
          (p.podSelector ? selects(p.podSelector, peer.pod) : p.namespaceSelector !== undefined),
    );
  const portMatches = (ports: { port: number }[] | undefined, port: number) =>
    ports === undefined || ports.some((p) => p.port === port);
  /**
   * Kubernetes semantics: isolated by any policy of that direction, then allowed if any rule of any such policy allows.
   */
  const allowed = (direction: "Ingress" | "Egress", pod: Record<string, string>, peer: Peer, port: number) => {
    const applying = policies.filter((p) => selects(p.spec.podSelector, pod) && p.spec.policyTypes.includes(direction));
    if (applying.length === 0) return true;
    const key = direction === "Ingress" ? "ingress" : "egress";
    const peersKey = direction === "Ingress" ? "from" : "to";
    return applying.some((p) =>
      (p.spec[key] ?? []).some((rule: any) => peerMatches(rule[peersKey], peer) && portMatches(rule.ports, port)),
    );
  };
  const reach = (from: Component, to: Component) => {
    const port = container(to).ports[0].containerPort;
    return (
      allowed("Egress", podLabels(from), { pod: podLabels(to) }, port) &&
      allowed("Ingress", podLabels(to), { pod: podLabels(from) }, port)
    );
  };
  const outsider: Peer = { ip: "203.0.113.7" };

  it("denies by default in both directions for every pod of the release", () => {
    const deny = policies.find((p) => p.spec.ingress === undefined && p.spec.egress === undefined)!;
    expect(deny.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    for (const component of COMPONENTS) expect(selects(deny.spec.podSelector, podLabels(component))).toBe(true);
  });

  it("lets the outside reach only the gateway, each backend only the gateway and the jobs worker, and the worker only the gateway", () => {
    expect(allowed("Ingress", podLabels("gateway"), outsider, 8080)).toBe(true);
    for (const backend of [...BACKENDS, "jobs"] as const) {
      expect(allowed("Ingress", podLabels(backend), outsider, container(backend).ports[0].containerPort), backend).toBe(
        false,
      );
      const callers: Component[] = backend === "jobs" ? ["gateway"] : ["gateway", "jobs"];
      for (const caller of callers) expect(reach(caller, backend), `${caller} -> ${backend}`).toBe(true);
      const port = container(backend).ports[0].containerPort;
      // Ingress alone must refuse them (not only the callers' egress): other components, other pods of the namespace.
      const strangers = [
        ...COMPONENTS.filter((c) => !callers.includes(c) && c !== backend).map(podLabels),
        { app: "something-else" },
      ];
      for (const pod of strangers)
        expect(allowed("Ingress", podLabels(backend), { pod }, port), `${JSON.stringify(pod)} -> ${backend}`).toBe(
          false,
        );
    }
  });

  it("opens the renderer's (pages) and the jobs worker's (webhooks) egress to the internet and closes it to private ranges and metadata addresses", () => {
    for (const component of ["renderer", "jobs"] as const) {
      const pod = podLabels(component);
      for (const ip of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]) {
        for (const port of [80, 443, 8443]) expect(allowed("Egress", pod, { ip }, port), `${ip}:${port}`).toBe(true);
      }
    }
    const renderer = podLabels("renderer");
    const closed = [
      "169.254.169.254", // AWS, GCP, Azure metadata
      "100.100.100.200", // Alibaba metadata
      "fd00:ec2::254", // AWS metadata over IPv6
      "10.0.0.1",
      "172.20.0.10",
      "192.168.1.1",
      "127.0.0.1",
      "::1",
      "fe80::1",
    ];
    for (const component of ["renderer", "jobs"] as const) {
      for (const ip of closed) {
        for (const port of [80, 443])
          expect(allowed("Egress", podLabels(component), { ip }, port), `${component} ${ip}:${port}`).toBe(false);
      }
    }
    expect(allowed("Egress", renderer, { ip: "10.0.0.5" }, 5432)).toBe(false);
    // The extractor and auth reach only their own dependencies, never arbitrary pages.
    expect(allowed("Egress", podLabels("auth"), { ip: "93.184.216.34" }, 80)).toBe(false);
    expect(allowed("Egress", podLabels("extractor"), { ip: "93.184.216.34" }, 80)).toBe(false);
    expect(allowed("Egress", podLabels("extractor"), { ip: "93.184.216.34" }, 443), "the OpenAI API").toBe(true);
    expect(allowed("Egress", podLabels("extractor"), { ip: "10.0.0.5" }, 5432), "its template database").toBe(true);
  });

  it("lets pods in the cluster, not the outside, scrape every service's metrics port", () => {
    const port = defaultValues().metrics.port;
    const prometheus = { pod: { "app.kubernetes.io/name": "prometheus" } };
    for (const component of COMPONENTS) {
      expect(allowed("Ingress", podLabels(component), prometheus, port), component).toBe(true);
      expect(allowed("Ingress", podLabels(component), outsider, port), component).toBe(false);
    }
  });

  it("lets every pod resolve names through the cluster DNS", () => {
    const dns = { pod: { "k8s-app": "kube-dns" } };
    for (const component of COMPONENTS) expect(allowed("Egress", podLabels(component), dns, 53), component).toBe(true);
  });
});

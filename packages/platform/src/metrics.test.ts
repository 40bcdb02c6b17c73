import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";
import { serveMetrics } from "./metrics.js";

const logger = createLogger("metrics-test", "silent");
const slot = Symbol.for("winnow.telemetry.prometheus");
let provider: MeterProvider;

beforeAll(() => {
  // As the telemetry preload does: the exporter is the provider's reader, its endpoint served by the service.
  const exporter = new PrometheusExporter({ preventServerStart: true });
  provider = new MeterProvider({ readers: [exporter] });
  (globalThis as Record<symbol, unknown>)[slot] = exporter;
});
afterAll(async () => {
  delete (globalThis as Record<symbol, unknown>)[slot];
  await provider.shutdown();
});

describe("serveMetrics", () => {
  it("serves what was recorded at GET /metrics, and nothing else", async () => {
    provider.getMeter("test").createCounter("winnow.test.things").add(3, { kind: "a" });
    const port = await serveMetrics("127.0.0.1", 0, logger);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^winnow_test_things_total\{kind="a",otel_scope_name="test"\} 3$/m);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST" })).status).toBe(404);
  });

  it("says which variables to change when the port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      await expect(serveMetrics("127.0.0.1", port, logger)).rejects.toThrow(
        `cannot serve metrics on 127.0.0.1:${port} (METRICS_HOST, METRICS_PORT)`,
      );
    } finally {
      taken.close();
    }
  });

  it("serves nothing when metrics do not go to Prometheus", async () => {
    const exporter = (globalThis as Record<symbol, unknown>)[slot];
    delete (globalThis as Record<symbol, unknown>)[slot];
    try {
      expect(await serveMetrics("127.0.0.1", 0, logger)).toBeUndefined();
    } finally {
      (globalThis as Record<symbol, unknown>)[slot] = exporter;
    }
  });
});

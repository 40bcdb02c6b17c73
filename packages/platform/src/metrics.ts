/**
 * Metrics through OpenTelemetry. The telemetry preload installs the
 * MeterProvider (Prometheus by default, OTLP with OTEL_METRICS_EXPORTER=otlp),
 * so instruments made from `meter` at import time record into it; without the
 * preload (tests in one process) they are no-ops. Each service serves its
 * Prometheus endpoint with serveMetrics on its own validated host and port.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { metrics } from "@opentelemetry/api";
import type { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import type { Logger } from "pino";
import { env } from "./config.js";

export const meter = metrics.getMeter("winnow");

/** Histogram buckets for durations in seconds: from a cached key check to a slow page and model. */
export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** Where a service serves /metrics; each service has its own default port, so `npm start` has no collisions. */
export const metricsConfig = (defaultPort: number) => ({
  METRICS_HOST: env.host("127.0.0.1"),
  METRICS_PORT: env.port(defaultPort),
});

/** Set by the telemetry preload when metrics go to Prometheus. */
const PROMETHEUS_EXPORTER = Symbol.for("winnow.telemetry.prometheus");

/**
 * Serves GET /metrics (Prometheus text format) on host:port when the preload
 * exports to Prometheus, and resolves to the port; does nothing otherwise.
 * Rejects when the port is taken.
 */
export async function serveMetrics(host: string, port: number, logger: Logger): Promise<number | undefined> {
  const exporter = (globalThis as Record<symbol, PrometheusExporter | undefined>)[PROMETHEUS_EXPORTER];
  if (!exporter) return undefined;
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && new URL(req.url ?? "/", "http://x").pathname === "/metrics")
      exporter.getMetricsRequestHandler(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("Metrics are at GET /metrics\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(new Error(`cannot serve metrics on ${host}:${port} (METRICS_HOST, METRICS_PORT): ${error.message}`)),
    );
    server.listen(port, host, resolve);
  });
  // Never the reason the process stays up.
  server.unref();
  const { port: bound } = server.address() as AddressInfo;
  logger.info({ url: `http://${host}:${bound}/metrics` }, "metrics served");
  return bound;
}

/**
 * OpenTelemetry preload: `node --import @winnow/platform/telemetry main.js`.
 * Loaded before the app so HTTP, Express and gRPC are instrumented, and the
 * runtime (event loop, heap, CPU) measured. The OTLP
 * exporter is configured by the standard OTEL_* variables; with none of them
 * set, nothing is exported (and no spans are recorded), but incoming trace
 * context still passes through to downstream calls. Metrics go to Prometheus
 * (served by each service, see metrics.ts) unless OTEL_METRICS_EXPORTER says
 * otherwise (`otlp`, `none`), in which case the SDK configures them.
 */
import { register } from "node:module";
import path from "node:path";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { ExpressInstrumentation, ExpressLayerType } from "@opentelemetry/instrumentation-express";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { RuntimeNodeInstrumentation } from "@opentelemetry/instrumentation-runtime-node";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { AlwaysOffSampler, ParentBasedSampler } from "@opentelemetry/sdk-trace-base";
import { isUntraced } from "./untraced.js";

// ESM modules are only patched through import-in-the-middle's loader hook.
register("@opentelemetry/instrumentation/hook.mjs", import.meta.url);

const env = process.env;
const exporting = env.OTEL_TRACES_EXPORTER
  ? env.OTEL_TRACES_EXPORTER !== "none"
  : Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);

// Logs go to stdout (pino), not through OpenTelemetry, unless asked for.
env.OTEL_LOGS_EXPORTER ??= "none";
// The service serves this exporter's endpoint itself, on its validated METRICS_HOST and METRICS_PORT.
const prometheus =
  (env.OTEL_METRICS_EXPORTER ?? "prometheus") === "prometheus"
    ? new PrometheusExporter({ preventServerStart: true })
    : undefined;
(globalThis as Record<symbol, unknown>)[Symbol.for("winnow.telemetry.prometheus")] = prometheus;
// services/<name>/dist/main.js -> winnow-<name>, unless OTEL_SERVICE_NAME says otherwise.
env.OTEL_SERVICE_NAME ??= serviceNameFromEntry(process.argv[1]);

const sdk = new NodeSDK({
  // Not exporting: spans that start here are not recorded at all (recording them for no
  // processor costs a quarter of a scrape's CPU); a caller's sampled trace stays sampled.
  ...(exporting ? {} : { spanProcessors: [], sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) }),
  ...(prometheus ? { metricReaders: [prometheus] } : {}),
  instrumentations: [
    new HttpInstrumentation({
      // Health probes and metrics scrapes would drown the traces and request metrics that matter; the egress
      // proxy's requests are the scraped sites' (untraced.ts).
      ignoreIncomingRequestHook: (req) =>
        isUntraced(req) || req.url === "/healthz" || req.url === "/readyz" || req.url === "/metrics",
      // Outgoing HTTP is only ever to third parties (the egress proxy's targets): they get no trace context, and
      // no span records the URLs scraped.
      disableOutgoingRequestInstrumentation: true,
      // A query string may hold what no span should (tokens, a search); spans keep the path.
      startIncomingSpanHook: () => ({ "url.query": undefined }),
    }),
    // Not exporting: no span of a middleware, router or handler is recorded, so none is made (a dozen per scrape,
    // each binding its context twice); the route still names the request's HTTP span and metrics (http_route).
    new ExpressInstrumentation(
      exporting
        ? {}
        : {
            ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER, ExpressLayerType.REQUEST_HANDLER],
          },
    ),
    new GrpcInstrumentation({ ignoreGrpcMethods: ["Check", "Watch"] }),
    // Event-loop delay and utilization, heap and GC, CPU: nodejs_eventloop_*, v8js_*, process_cpu_* on /metrics.
    new RuntimeNodeInstrumentation(),
  ],
});
sdk.start();

// Graceful shutdown flushes spans through this hook (see lifecycle.ts), so
// code that merely imports the platform never starts the SDK by accident.
(globalThis as Record<symbol, unknown>)[Symbol.for("winnow.telemetry.shutdown")] = () => sdk.shutdown();

function serviceNameFromEntry(entry: string | undefined): string {
  const match = entry && /services[\\/]([^\\/]+)[\\/]/.exec(path.resolve(entry));
  return match ? `winnow-${match[1]}` : "winnow";
}

/**
 * The renderer traced (the telemetry preload, exporting over OTLP) while it
 * scrapes: the sites it fetches get no trace context from Winnow, and no
 * exported span holds a query string, the scraped pages' or anyone's.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, promiseClient, type RendererClient } from "@winnow/platform";
import { RendererServiceClient, RenderMode } from "@winnow/platform/gen/winnow/renderer/v1/renderer.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TOKENS } from "../support/caller-tokens.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";
import { freePorts } from "../support/ports.js";
import { type ServiceProcess, startService } from "../support/service-process.js";

const PAGE_QUERY = "page-query-a1b2c3";
const FETCH_QUERY = "fetch-query-d4e5f6";
const PROBE_QUERY = "probe-query-g7h8i9";
/** Headers that carry trace context (W3C Trace Context and Baggage). */
const TRACE_HEADERS = ["traceparent", "tracestate", "baggage"];
/** A sampled trace context, so the server spans of a request that sends it are recorded. */
const SAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

let site: http.Server;
let sitePort: number;
const siteRequests: { url: string; traceHeaders: string[] }[] = [];
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let renderer: ServiceProcess;
let client: RendererClient;
let metricsPort: number;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    siteRequests.push({ url: req.url ?? "", traceHeaders: TRACE_HEADERS.filter((name) => name in req.headers) });
    if (req.url?.startsWith("/data")) return void res.writeHead(200, { "content-type": "application/json" }).end("{}");
    res.writeHead(200, { "content-type": "text/html" }).end(
      `<!doctype html><title>traced</title><body><p>A page with enough text to need no browser at all.</p>
       <script>fetch("/data?q=${FETCH_QUERY}").then(() => { document.body.dataset.done = "1"; })</script></body>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  sitePort = (site.address() as AddressInfo).port;
  otlp = await startOtlpReceiver();
  const [grpcPort, metrics] = (await freePorts(2)) as [number, number];
  metricsPort = metrics;
  renderer = await startService(
    "renderer",
    {
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(metricsPort),
      WINNOW_EGRESS_ALLOW: `127.0.0.1:${sitePort}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    },
    `127.0.0.1:${grpcPort}`,
    ["--import", "@winnow/platform/telemetry"],
  );
  client = promiseClient(createClient(RendererServiceClient, `127.0.0.1:${grpcPort}`, TEST_TOKENS.service));
});

afterAll(async () => {
  client?.grpc.close();
  await renderer?.stop();
  await otlp?.close();
  site?.closeAllConnections();
  site?.close();
});

describe("the renderer, traced", () => {
  it("sends no trace context to the sites it fetches, and exports no span with a query string", async () => {
    const url = `http://127.0.0.1:${sitePort}/page?q=${PAGE_QUERY}`;
    for (const mode of [RenderMode.RENDER_MODE_STATIC, RenderMode.RENDER_MODE_BROWSER]) {
      const page = await client.render({
        url,
        options: {
          mode,
          timeoutMs: 0,
          waitFor: mode === RenderMode.RENDER_MODE_BROWSER ? "body[data-done]" : "",
          screenshot: false,
          outline: [],
        },
      });
      expect(page.title).toBe("traced");
    }
    // An incoming request of the service's own, with a query, in a sampled trace.
    const probe = await fetch(`http://127.0.0.1:${metricsPort}/metrics?probe=${PROBE_QUERY}`, {
      headers: { traceparent: SAMPLED },
    });
    await probe.body?.cancel();

    expect(siteRequests.map((r) => r.url)).toEqual(
      expect.arrayContaining([`/page?q=${PAGE_QUERY}`, `/data?q=${FETCH_QUERY}`]),
    );
    expect(siteRequests.filter((r) => r.traceHeaders.length > 0)).toEqual([]);

    // Both renders' gRPC spans and the probe's span exported: what spans there are has arrived.
    await expect
      .poll(
        () => ({
          renders: otlp.spans.filter((s) => /RendererService\/Render$/.test(s.name)).length,
          probe: otlp.spans.some((s) => s.attributes["url.path"] === "/metrics"),
        }),
        { timeout: 15_000 },
      )
      .toEqual({ renders: 2, probe: true });
    const exported = JSON.stringify(otlp.spans);
    for (const query of [PAGE_QUERY, FETCH_QUERY, PROBE_QUERY]) expect(exported).not.toContain(query);
    expect(exported).not.toContain(`:${sitePort}`);
  });
});

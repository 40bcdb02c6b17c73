import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** Attribute values as strings. */
  attributes: Record<string, string>;
}

/** One metric as exported by a service, e.g. { service: "winnow-extractor", name: "winnow.extractions" }. */
export interface ReceivedMetric {
  service: string;
  name: string;
}

/**
 * A minimal OTLP/HTTP receiver (JSON encoding) that keeps spans, and the names
 * of metrics, in memory, so a test can see what four separate processes exported.
 */
export async function startOtlpReceiver(): Promise<{
  endpoint: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      if (req.url === "/v1/traces") spans.push(...parseExport(body));
      if (req.url === "/v1/metrics") metrics.push(...parseMetrics(body));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[] }[];
    }[];
  }[];
}

function parseExport(body: string): ReceivedSpan[] {
  const data = JSON.parse(body) as OtlpExport;
  return (data.resourceSpans ?? []).flatMap((rs) => {
    const service = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        name: s.name,
        attributes: Object.fromEntries(
          (s.attributes ?? []).map((a) => [
            a.key,
            String(a.value.stringValue ?? a.value.intValue ?? a.value.doubleValue ?? a.value.boolValue),
          ]),
        ),
      })),
    );
  });
}

interface OtlpMetricsExport {
  resourceMetrics?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeMetrics?: { metrics?: { name: string }[] }[];
  }[];
}

function parseMetrics(body: string): ReceivedMetric[] {
  const data = JSON.parse(body) as OtlpMetricsExport;
  return (data.resourceMetrics ?? []).flatMap((rm) => {
    const service = rm.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
    return (rm.scopeMetrics ?? []).flatMap((sm) => (sm.metrics ?? []).map((m) => ({ service, name: m.name })));
  });
}

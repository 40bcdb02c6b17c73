import { trace } from "@opentelemetry/api";
import { type Logger, pino } from "pino";
import { currentRequestFields } from "./request-fields.js";

export type { Logger } from "pino";

/**
 * JSON logs on stdout, one logger per service. Each line carries the active
 * trace and span ids so logs and traces join up, and the request it serves
 * (request_id, target_host, key_id; see request-fields.ts); credentials are redacted.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    redact: {
      paths: [
        "apiKey",
        "api_key",
        "password",
        "*.apiKey",
        "*.api_key",
        "*.password",
        "sessionToken",
        "*.sessionToken",
        'res.headers["set-cookie"]',
        'req.headers["x-api-key"]',
        "req.headers.authorization",
        "req.headers.cookie",
      ],
      censor: "[redacted]",
    },
    mixin() {
      const span = trace.getActiveSpan()?.spanContext();
      return { ...currentRequestFields(), ...(span ? { trace_id: span.traceId, span_id: span.spanId } : {}) };
    },
  });
}

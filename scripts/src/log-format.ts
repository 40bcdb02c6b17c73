/** Turns a service's pino JSON line into one short human line for the terminal. */
const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };
const HIDDEN = new Set(["level", "time", "pid", "hostname", "name", "service", "msg", "trace_id", "span_id"]);

export function formatLogLine(service: string, line: string): string {
  const prefix = service.padEnd(9);
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${prefix} ${line}`;
  }
  if (typeof entry !== "object" || entry === null) return `${prefix} ${line}`;
  const level = LEVELS[entry.level as number] ?? "info";
  const extra = Object.entries(entry).filter(([key]) => !HIDDEN.has(key));
  const details = extra.length > 0 ? ` ${JSON.stringify(Object.fromEntries(extra))}` : "";
  return `${prefix} ${level.padEnd(5)} ${String(entry.msg ?? "")}${details}`;
}

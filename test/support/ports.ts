import { portsInUse } from "../../scripts/src/start-checks.js";

export { freePorts } from "../../scripts/src/ports.js";

/** `count` consecutive ports free right now on 127.0.0.1 (for a base such as METRICS_PORT_BASE). */
export async function freePortRange(count: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const planned = Array.from({ length: count }, (_, i) => ({ host: "127.0.0.1", port: base + i, variable: "" }));
    if ((await portsInUse(planned)).length === 0) return base;
  }
}

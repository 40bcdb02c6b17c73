import { freePorts } from "../../scripts/src/ports.js";
import { portsInUse } from "../../scripts/src/start-checks.js";

export { freePorts };

/** `count` consecutive ports free right now on 127.0.0.1 (for a base such as METRICS_PORT_BASE). */
export async function freePortRange(count: number): Promise<number> {
  for (;;) {
    const [base] = (await freePorts(1)) as [number];
    const planned = Array.from({ length: count }, (_, i) => ({ host: "127.0.0.1", port: base + i, variable: "" }));
    if ((await portsInUse(planned)).length === 0) return base;
  }
}

/**
 * `npm run bench:soak` (not in CI): the stack at a fixed request rate for
 * SOAK_SECONDS (default 600), with a fault injected every SOAK_FAULT_EVERY
 * seconds (default 120): the renderer killed, Chromium killed, the extractor
 * killed, in turn. Reports errors by type, split into those within
 * SOAK_FAULT_WINDOW seconds (default 15) of a fault and the rest, and each
 * service's memory (its process tree's RSS) after warm-up and at the end.
 * Aims: no errors outside fault windows; no service growing over 10%.
 * Writes bench/results/soak.json.
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { descendantsRssBytes } from "@winnow/renderer";
import { REPO_ROOT, type ServiceName } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 4);
const FAULT_EVERY = Number(process.env.SOAK_FAULT_EVERY ?? 120);
const FAULT_WINDOW = Number(process.env.SOAK_FAULT_WINDOW ?? 15);
const WARM_UP = Math.min(60, SECONDS / 10);
const SERVICES: ServiceName[] = ["gateway", "auth", "renderer", "extractor"];

// Half the pages need the browser, half do not.
const page = (i: number) =>
  i % 2 === 0
    ? `<!doctype html><html><head><title>Item ${i}</title><script type="application/ld+json">${JSON.stringify({ "@type": "Product", name: `Item ${i}`, offers: { price: "10.00", priceCurrency: "USD" } })}</script></head><body><h1>Item ${i}</h1></body></html>`
    : `<!doctype html><html><head><title>Loading</title></head><body><div id="root"></div><script>document.getElementById("root").innerHTML = "<h1>Item ${i}</h1>";</script></body></html>`;
const site = createServer((req, res) =>
  res.writeHead(200, { "content-type": "text/html" }).end(page(Number(req.url?.slice(1)) || 0)),
);
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const stack = await startThrowawayStack({ env: { WINNOW_EGRESS_ALLOW: origin.slice(7) } });

const memory = () =>
  Object.fromEntries(SERVICES.map((s) => [s, Math.round(descendantsRssBytes(stack.process(s).pid!, true) / 2 ** 20)]));
const faults: { at: number; what: string }[] = [];
const errors = { duringFaults: {} as Record<string, number>, otherwise: {} as Record<string, number> };
let ok = 0;
const started = Date.now();
const elapsed = () => (Date.now() - started) / 1000;

const FAULTS: [string, () => void][] = [
  ["renderer killed", () => stack.process("renderer").kill("SIGKILL")],
  [
    "Chromium killed",
    () => {
      const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(stack.process("renderer").pid)], {
        encoding: "utf8",
      });
      for (const line of children.split("\n").filter((l) => /chrom/i.test(l)))
        process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
    },
  ],
  ["extractor killed", () => stack.process("extractor").kill("SIGKILL")],
];

let startMemory: Record<string, number> | undefined;
const inFlight = new Set<Promise<void>>();
for (let i = 0; elapsed() < SECONDS; i++) {
  if (!startMemory && elapsed() >= WARM_UP) startMemory = memory();
  const due = Math.floor(elapsed() / FAULT_EVERY);
  if (due > faults.length && elapsed() < SECONDS - FAULT_WINDOW) {
    const [what, inject] = FAULTS[faults.length % FAULTS.length]!;
    inject();
    faults.push({ at: elapsed(), what });
  }
  const request = fetch(`${stack.gatewayUrl}/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
    body: JSON.stringify({ url: `${origin}/${i}`, schema: { name: "string", price_usd: "number" } }),
  })
    .then(async (res) => {
      const body = (await res.json()) as { type?: string };
      if (res.ok) return void ok++;
      throw new Error(`${res.status} ${body.type?.replace("https://winnow.dev/problems/", "")}`);
    })
    .catch((error: Error) => {
      const inWindow = faults.some((f) => elapsed() - f.at <= FAULT_WINDOW);
      const bucket = inWindow ? errors.duringFaults : errors.otherwise;
      bucket[error.message] = (bucket[error.message] ?? 0) + 1;
    });
  const tracked = request.finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
  await new Promise((resolve) => setTimeout(resolve, 1000 / RATE));
}
await Promise.all(inFlight);
await stack.waitUntilReady();
const endMemory = memory();
await stack.stop();
site.close();

const growth = Object.fromEntries(
  SERVICES.map((s) => [s, startMemory ? (endMemory[s]! - startMemory[s]!) / startMemory[s]! : NaN]),
);
console.log(
  `\nSoak: ${SECONDS} s at ${RATE} req/s, a fault every ${FAULT_EVERY} s (${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})`,
);
console.log(`succeeded: ${ok}; faults: ${faults.map((f) => `${f.what} at ${f.at.toFixed(0)} s`).join(", ")}`);
console.log(
  `errors within ${FAULT_WINDOW} s of a fault: ${JSON.stringify(errors.duringFaults)}; otherwise: ${JSON.stringify(errors.otherwise)}`,
);
console.log("service    after warm-up MiB  end MiB  growth");
for (const s of SERVICES) {
  console.log(
    `${s.padEnd(10)} ${String(startMemory?.[s] ?? "-").padStart(17)} ${String(endMemory[s]).padStart(8)} ${(100 * growth[s]!).toFixed(1).padStart(6)}%`,
  );
}
const out = path.join(REPO_ROOT, "bench/results/soak.json");
await mkdir(path.dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, loadavg: loadavg(), seconds: SECONDS, rate: RATE, ok, faults, errors, memoryMiB: { afterWarmUp: startMemory, end: endMemory }, growth }, null, 2)}\n`,
);
process.exit(0);

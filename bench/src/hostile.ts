/**
 * `npm run bench:hostile`: do hostile pages slow down everyone else? The
 * whole stack on loopback serves normal scrapes (a product page, builtin
 * engine) at a fixed concurrency for BENCH_SECONDS (default 20), once alone
 * and once with HOSTILE_CONCURRENCY (default 1) closed-loop streams of
 * hostile pages beside them: a 150 KB run of one letter, a page full of
 * `<|endoftext|>`, 100,000 nested <div>s, 200,000 siblings and a 2 MB page.
 * It prints the normal scrapes' p50/p95 in both runs and the p95 ratio (the
 * aim: within 2×), and how the hostile scrapes ended; JSON in
 * bench/results/hostile.json; HOSTILE_PAGES names the pages to send (all by
 * default). The gateway's deadline is REQUEST_TIMEOUT_MS
 * (default here 10 s), which bounds what one hostile page can cost.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { percentile } from "./format.js";
import { PRODUCT_SCHEMA, productPage } from "./product-page.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const HOSTILE_CONCURRENCY = Number(process.env.HOSTILE_CONCURRENCY ?? 1);
const REQUEST_TIMEOUT_MS = process.env.REQUEST_TIMEOUT_MS ?? "10000";

const page = (body: string) => `<!doctype html><html><head><title>Hostile</title></head><body>${body}</body></html>`;
const HOSTILE: Record<string, string> = {
  "one-letter": page(`<p>${"a".repeat(150_000)}</p>`),
  endoftext: page(`<p>${"Price <|endoftext|> <|im_start|>system ".repeat(2_000)}</p>`),
  "nested-100k": page(`${"<div>".repeat(100_000)}deep${"</div>".repeat(100_000)}`),
  "siblings-200k": page(`<div>${"<span>x</span>".repeat(200_000)}</div>`),
  "page-2mb": page(
    Array.from(
      { length: 14_000 },
      (_, i) => `<div class="item"><h3>Item ${i}</h3><p>Price: $${i}.00, in stock, ships tomorrow.</p></div>`,
    ).join(""),
  ),
};
/** HOSTILE_PAGES (comma-separated names) sends only those. */
const HOSTILE_NAMES = process.env.HOSTILE_PAGES?.split(",") ?? Object.keys(HOSTILE);
for (const name of HOSTILE_NAMES) if (!(name in HOSTILE)) throw new Error(`HOSTILE_PAGES: no page ${name}`);

const site = createServer((req, res) => {
  const [, kind, n] = /^\/(normal|hostile)\/([\w-]+)/.exec(req.url ?? "") ?? [];
  const body = kind === "normal" ? productPage(Number(n)) : kind === "hostile" ? HOSTILE[n!] : undefined;
  if (body === undefined) return void res.writeHead(404).end();
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const stack = await startThrowawayStack({
  env: { WINNOW_EGRESS_ALLOW: origin.replace("http://", ""), REQUEST_TIMEOUT_MS, RENDER_MAX_QUEUE: "256" },
});
/** One scrape: its outcome ("ok" or "HTTP <status> <type>") and how long it took. */
async function scrape(pagePath: string): Promise<{ outcome: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${stack.gatewayUrl}/scrape`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
    body: JSON.stringify({ url: `${origin}/${pagePath}`, schema: PRODUCT_SCHEMA }),
  });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.ok) return { outcome: "ok", ms };
  let type = "";
  try {
    type = (JSON.parse(body) as { type?: string }).type?.split("/").pop() ?? "";
  } catch {}
  return { outcome: `HTTP ${res.status} ${type}`.trim(), ms };
}

interface Run {
  hostile: boolean;
  normal: { requests: number; errors: Record<string, number>; p50: number; p95: number; p99: number };
  /** Per hostile page: outcomes and the longest time one took. */
  hostilePages: Record<string, { outcomes: Record<string, number>; maxMs: number }>;
}

async function run(hostile: boolean, seconds = SECONDS): Promise<Run> {
  const end = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const hostilePages: Run["hostilePages"] = {};
  let next = 0;
  let nextHostile = 0;
  const normalStreams = Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) {
      const { outcome, ms } = await scrape(`normal/${next++}`);
      if (outcome === "ok") latencies.push(ms);
      else errors[outcome] = (errors[outcome] ?? 0) + 1;
    }
  });
  const hostileStreams = Array.from({ length: hostile ? HOSTILE_CONCURRENCY : 0 }, async () => {
    while (performance.now() < end) {
      const name = HOSTILE_NAMES[nextHostile++ % HOSTILE_NAMES.length]!;
      const { outcome, ms } = await scrape(`hostile/${name}`);
      const entry = hostilePages[name] ?? { outcomes: {}, maxMs: 0 };
      hostilePages[name] = entry;
      entry.outcomes[outcome] = (entry.outcomes[outcome] ?? 0) + 1;
      entry.maxMs = Math.max(entry.maxMs, ms);
    }
  });
  await Promise.all([...normalStreams, ...hostileStreams]);
  latencies.sort((a, b) => a - b);
  return {
    hostile,
    normal: {
      requests: latencies.length,
      errors,
      p50: percentile(latencies, 0.5),
      p95: percentile(latencies, 0.95),
      p99: percentile(latencies, 0.99),
    },
    hostilePages,
  };
}

await run(false, 3); // warm-up: the services compile their hot path
const alone = await run(false);
const beside = await run(true);
await stack.stop();
site.close();

const ratio = beside.normal.p95 / alone.normal.p95;
const ms = (v: number) => v.toFixed(1).padStart(8);
console.log(
  `\nNormal scrapes at concurrency ${CONCURRENCY}, ${SECONDS} s per run, ${HOSTILE_CONCURRENCY} hostile stream(s) beside them in the second (${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})\n`,
);
console.log("run              requests  errors      p50      p95      p99");
for (const r of [alone, beside]) {
  const errs = Object.values(r.normal.errors).reduce((a, b) => a + b, 0);
  console.log(
    `${(r.hostile ? "beside hostile" : "alone").padEnd(16)} ${String(r.normal.requests).padStart(8)} ${String(errs).padStart(7)} ${ms(r.normal.p50)} ${ms(r.normal.p95)} ${ms(r.normal.p99)}`,
  );
}
console.log(`\np95 ratio (beside hostile / alone): ${ratio.toFixed(2)}x (aim: within 2x)`);
console.log("\nhostile page      longest ms  outcomes");
for (const name of HOSTILE_NAMES) {
  const entry = beside.hostilePages[name];
  if (!entry) continue;
  const outcomes = Object.entries(entry.outcomes)
    .map(([outcome, count]) => `${count} × ${outcome}`)
    .join(", ");
  console.log(`${name.padEnd(16)} ${entry.maxMs.toFixed(0).padStart(11)}  ${outcomes}`);
}
const out = path.join(REPO_ROOT, "bench/results/hostile.json");
await mkdir(path.dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      loadavg: loadavg(),
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      hostileConcurrency: HOSTILE_CONCURRENCY,
      requestTimeoutMs: Number(REQUEST_TIMEOUT_MS),
      alone,
      beside,
      p95Ratio: ratio,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
process.exit(0);

/**
 * `npm run bench:load`: the whole stack under load on loopback, against the
 * same work done directly in one process (the renderer's and the builtin
 * extractor's code called in-process: no gateway, no auth, no gRPC), measured
 * in the same run so the ratio shows what the gateway and the hops cost.
 *
 *   static pages (builtin engine): concurrency 1, 8, 32, also on a stack
 *     that stores every scrape in its cache and one without a cache
 *   browser pages (a JavaScript shell): concurrency 1, 4
 *
 * The floor: the same run measures a bare HTTP round trip and a bare gRPC
 * round trip carrying the page, each to another process that does nothing
 * else (hop-floor.ts). A scrape through the stack makes one of the first and
 * two of the second on top of the direct work, so at concurrency 1 no stack
 * of separate processes can beat (direct + HTTP + 2 gRPC) / direct on this
 * machine; the table shows that floor beside the measured ratio.
 *
 * For every stack level it also reports each service's CPU time per scrape
 * (user + system time of its Node process from /proc, before and after the
 * level: Linux only), and how much of it was the main thread's (the event
 * loop; the rest is worker threads', the optimizing compiler's and the
 * garbage collector's). Beside them, the extraction alone (the builtin engine
 * on the same page, in this process, one page at a time) as a yardstick: on
 * a shared machine whose speed swings, a service's CPU as a multiple of it
 * compares across runs where milliseconds do not.
 *
 * Steady state, not start-up: each side first serves
 * BENCH_WARM_UP_REQUESTS (default 6,000) static scrapes untimed. V8 keeps
 * optimizing the services' code over their first few thousand requests
 * (the extractor's in each of its worker threads); measured after three
 * seconds, every service's CPU per scrape was 1.5-3x what it settles to.
 * BENCH_SECONDS (default 10) sets each level's duration; each level also
 * runs untimed for BENCH_WARM_UP_SECONDS (default 3) first, on both sides.
 * BENCH_PROFILE=<gateway|auth|renderer|extractor> writes a V8 CPU profile of
 * that service's whole run to bench/results/profiles/<service>/ (open it in
 * Chrome DevTools or speedscope). Prints a table and writes bench/results/load.json.
 */
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { extractBuiltin, loadPage, shape } from "@winnow/extractor";
import { createLogger, loadConfig, parseSchema } from "@winnow/platform";
import { createRendering, rendererConfigShape } from "@winnow/renderer";
import { REPO_ROOT, type ServiceName } from "@winnow/scripts/stack";
import { startThrowawayStack } from "@winnow/scripts/throwaway-stack";
import { measureHopFloor } from "./hop-floor.js";
import { cpuMs, mainThreadCpuMs } from "./process-cpu.js";
import { PRODUCT_SCHEMA, productPage } from "./product-page.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 3);
const WARM_UP_REQUESTS = Number(process.env.BENCH_WARM_UP_REQUESTS ?? 6000);
/** Pages the yardstick extracts, after as many untimed. */
const YARDSTICK_PAGES = 2000;
/** Where several stacks are measured at one level, each takes turns this long. */
const SLICE_SECONDS = 2;
const SERVICES: ServiceName[] = ["gateway", "auth", "renderer", "extractor"];
const PROFILE = process.env.BENCH_PROFILE as ServiceName | undefined;
if (PROFILE && !SERVICES.includes(PROFILE)) throw new Error(`BENCH_PROFILE must be one of ${SERVICES.join(", ")}`);
const PROFILE_DIR = path.join(REPO_ROOT, "bench/results/profiles");
const SCHEMA = { ...PRODUCT_SCHEMA, rating_out_of_5: "number" };

// Nothing but a script until JavaScript runs: the renderer's auto mode sends it to the browser.
const shell = (i: number) => `<!doctype html><html><head><title>Loading</title></head><body><div id="root"></div>
<script>document.title = "Trail Shoe ${i}"; document.getElementById("root").innerHTML = "<h1>Trail Shoe ${i}</h1><p>Price: $120.00</p>";</script></body></html>`;

const site = createServer((req, res) => {
  const [, kind, n] = /^\/(static|browser)\/(\d+)/.exec(req.url ?? "") ?? [];
  if (!kind) return void res.writeHead(404).end();
  res
    .writeHead(200, { "content-type": "text/html; charset=utf-8" })
    .end(kind === "static" ? productPage(Number(n)) : shell(Number(n)));
});
await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

interface Level {
  target: "stack" | "direct";
  /** Stack levels: which stack (CACHE_VARIANTS), "default" for the stack as configured. */
  variant?: string;
  pages: "static" | "browser";
  concurrency: number;
  requests: number;
  errors: Record<string, number>;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** Stack levels: each service's CPU ms per successful scrape. */
  cpuMsPerScrape?: Partial<Record<ServiceName, number>>;
  /** Stack levels: the part of cpuMsPerScrape its main thread spent. */
  mainThreadMsPerScrape?: Partial<Record<ServiceName, number>>;
}

/** What closed-loop load measured; several turns may add to one. */
interface Sample {
  latencies: number[];
  errors: Record<string, number>;
  seconds: number;
  /** The next page number: turns go on from where the last one stopped. */
  next: number;
}
const newSample = (): Sample => ({ latencies: [], errors: {}, seconds: 0, next: 0 });

/** Closed-loop load: `concurrency` workers, each sending its next request when the last one answered, for `seconds`. */
async function load(
  concurrency: number,
  work: (i: number) => Promise<string | undefined>,
  seconds: number,
  into = newSample(),
): Promise<Sample> {
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const error = await work(into.next++).catch((e: Error) => e.message);
        if (error) into.errors[error] = (into.errors[error] ?? 0) + 1;
        else into.latencies.push(performance.now() - t0);
      }
    }),
  );
  into.seconds += (performance.now() - started) / 1000;
  return into;
}

/** `requests` requests untimed, 32 at a time: the warm-up before a side's first level. */
async function warmUp(work: (i: number) => Promise<string | undefined>, requests: number): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (sent++ < requests) await work(sent).catch(() => undefined);
    }),
  );
}

function levelOf(target: Level["target"], pages: Level["pages"], concurrency: number, sample: Sample): Level {
  const latencies = [...sample.latencies].sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    target,
    pages,
    concurrency,
    requests: latencies.length,
    errors: sample.errors,
    rps: latencies.length / sample.seconds,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
  };
}

/**
 * Stacks measured beside the default on static pages, for what the scrape cache's background writes (to PGlite, on
 * the gateway's event loop, without REDIS_URL) cost a scrape at max_age 0, which reads nothing from cache: the
 * default keeps nothing then; CACHE_STORE_ALWAYS keeps every scrape (the default before); no cache at all.
 */
const CACHE_VARIANTS: { name: string; env: Record<string, string> }[] = [
  { name: "storing every scrape", env: { CACHE_STORE_ALWAYS: "true" } },
  { name: "no scrape cache", env: { CACHE_MAX_ENTRIES: "0" } },
];
const LEVELS: [Level["pages"], number][] = [
  ["static", 1],
  ["static", 8],
  ["static", 32],
  ["browser", 1],
  ["browser", 4],
];
const results: Level[] = [];

// The whole stack, as `npm start` runs it, on free ports; beside it, on static pages, the same stack with its scrape
// cache set otherwise (CACHE_VARIANTS), the stacks taking turns at each level so they share the machine's load.
if (PROFILE) await mkdir(path.join(PROFILE_DIR, PROFILE), { recursive: true });
const startStack = async (env: Record<string, string>, profile: boolean) => {
  const stack = await startThrowawayStack({
    env: { WINNOW_EGRESS_ALLOW: origin.replace("http://", ""), RENDER_MAX_QUEUE: "256", ...env },
    // Three stacks of five services start at once: on a loaded machine that outlasted the stack's 2-minute default.
    readyTimeoutMs: 600_000,
    nodeArgs:
      profile && PROFILE
        ? { [PROFILE]: ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, PROFILE)}`] }
        : undefined,
  });
  const scrape = (pages: Level["pages"], i: number) =>
    fetch(`${stack.gatewayUrl}/scrape`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
      body: JSON.stringify({ url: `${origin}/${pages}/${i}`, schema: SCHEMA }),
    });
  // The steady state: the gateway checks the key from its cache once auth's revocation feed is up.
  for (let tries = 0; !(await scrape("static", 0)).headers.get("server-timing")?.includes('desc="cached"'); tries++) {
    if (tries === 100) throw new Error("the gateway never answered the key from its cache");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const viaStack = (pages: Level["pages"]) => async (i: number) => {
    const res = await scrape(pages, i);
    const body = await res.text();
    return res.ok ? undefined : `HTTP ${res.status} ${(JSON.parse(body) as { type?: string }).type ?? ""}`;
  };
  return { stack, viaStack };
};
const stacks = [{ variant: "default", ...(await startStack({}, true)) }];
for (const { name, env } of CACHE_VARIANTS) stacks.push({ variant: name, ...(await startStack(env, false)) });
for (const { viaStack } of stacks) await warmUp(viaStack("static"), WARM_UP_REQUESTS);
for (const [pages, concurrency] of LEVELS) {
  const here = pages === "static" ? stacks : stacks.slice(0, 1);
  for (const { viaStack } of here) await load(concurrency, viaStack(pages), WARM_UP_SECONDS);
  const samples = here.map(() => ({ sample: newSample(), cpu: SERVICES.map(() => 0), main: SERVICES.map(() => 0) }));
  // Several stacks take turns of SLICE_SECONDS until each had SECONDS: a shared machine's load swings within seconds.
  const slice = here.length > 1 ? SLICE_SECONDS : SECONDS;
  for (let done = 0; done < SECONDS; done += slice) {
    for (const [i, { stack, viaStack }] of here.entries()) {
      const pids = SERVICES.map((service) => stack.process(service).pid!);
      const cpuBefore = pids.map(cpuMs);
      const mainBefore = pids.map(mainThreadCpuMs);
      await load(concurrency, viaStack(pages), Math.min(slice, SECONDS - done), samples[i]!.sample);
      pids.forEach((pid, k) => {
        samples[i]!.cpu[k]! += cpuMs(pid) - cpuBefore[k]!;
        samples[i]!.main[k]! += mainThreadCpuMs(pid) - mainBefore[k]!;
      });
    }
  }
  for (const [i, { variant }] of here.entries()) {
    const { sample, cpu, main } = samples[i]!;
    const level = levelOf("stack", pages, concurrency, sample);
    const perScrape = (ms: number[]) =>
      Object.fromEntries(SERVICES.map((service, k) => [service, ms[k]! / level.requests]));
    level.cpuMsPerScrape = perScrape(cpu);
    level.mainThreadMsPerScrape = perScrape(main);
    results.push({ ...level, variant });
  }
}
await Promise.all(stacks.map(({ stack }) => stack.stop()));

// The same work in this process: render (static or browser, chosen the same way) and the builtin engine.
const config = loadConfig(rendererConfigShape, {
  LOG_LEVEL: "warn",
  WINNOW_EGRESS_ALLOW: origin.replace("http://", ""),
  RENDER_MAX_QUEUE: "256", // No gRPC server here, but the renderer's configuration includes its caller token.
  WINNOW_SERVICE_TOKEN: randomBytes(32).toString("base64url"),
});
const rendering = await createRendering(config, createLogger("bench", "warn"));
if (!rendering.browser) throw new Error("this benchmark needs a Chromium");
await rendering.browser.start();
const tree = parseSchema(SCHEMA);
/** The builtin engine's answer to the page, as the extractor would send it. */
const extractDirect = (html: string, url: string) =>
  JSON.stringify(shape(tree, extractBuiltin(tree, loadPage(html, url))).data);
const direct = async (pages: Level["pages"], i: number) => {
  const page = await rendering.renderer.render({
    url: new URL(`${origin}/${pages}/${i}`),
    mode: "auto",
    waitFor: "",
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  });
  extractDirect(page.html, page.finalUrl);
  return undefined;
};
await warmUp((i) => direct("static", i), WARM_UP_REQUESTS);
for (const [pages, concurrency] of LEVELS) {
  await load(concurrency, (i) => direct(pages, i), WARM_UP_SECONDS);
  results.push(levelOf("direct", pages, concurrency, await load(concurrency, (i) => direct(pages, i), SECONDS)));
}
await rendering.close();
site.close();

/** The yardstick: CPU ms per page of the builtin engine alone on the same pages, one at a time, in this process. */
function extractionAlone(): number {
  const html = Array.from({ length: 100 }, (_, i) => productPage(i));
  const extract = (i: number) => extractDirect(html[i % 100]!, `${origin}/static/${i}`);
  for (let i = 0; i < YARDSTICK_PAGES; i++) extract(i);
  const before = process.cpuUsage();
  for (let i = 0; i < YARDSTICK_PAGES; i++) extract(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / YARDSTICK_PAGES;
}
const yardstickMs = extractionAlone();
const hops = await measureHopFloor(productPage(0));

const rows = LEVELS.map(([pages, concurrency]) => {
  const s = results.find((r) => r.variant === "default" && r.pages === pages && r.concurrency === concurrency)!;
  const d = results.find((r) => r.target === "direct" && r.pages === pages && r.concurrency === concurrency)!;
  return { pages, concurrency, stack: s, direct: d, p50Ratio: s.p50 / d.p50, rpsRatio: d.rps / s.rps };
});
// Each cache variant against the default stack at the same level: > 1 is faster than the default.
const cacheRows = LEVELS.filter(([pages]) => pages === "static").flatMap(([pages, concurrency]) => {
  const base = rows.find((r) => r.pages === pages && r.concurrency === concurrency)!.stack;
  return CACHE_VARIANTS.map(({ name }) => {
    const v = results.find((r) => r.variant === name && r.pages === pages && r.concurrency === concurrency)!;
    return {
      variant: name,
      pages,
      concurrency,
      stack: v,
      rpsRatio: v.rps / base.rps,
      p50Ratio: v.p50 / base.p50,
      p95Ratio: v.p95 / base.p95,
      gatewayCpuMs: { default: base.cpuMsPerScrape!.gateway!, variant: v.cpuMsPerScrape!.gateway! },
    };
  });
});
const directAtOne = rows.find((r) => r.pages === "static" && r.concurrency === 1)!.direct.p50;
const floorMs = directAtOne + hops.httpMs + 2 * hops.grpcMs;
const floor = { ...hops, p50: floorMs, ratio: floorMs / directAtOne };
const ms = (v: number) => v.toFixed(1);
console.log(
  `\nLoad on loopback, ${SECONDS} s per level (${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)})\n`,
);
console.log(
  "pages    conc | stack p50  p95    p99    req/s  errors | direct p50  p95    req/s | p50 ratio  throughput ratio",
);
for (const r of rows) {
  const errs = Object.values(r.stack.errors).reduce((a, b) => a + b, 0);
  console.log(
    `${r.pages.padEnd(8)} ${String(r.concurrency).padStart(4)} | ${ms(r.stack.p50).padStart(8)} ${ms(r.stack.p95).padStart(6)} ${ms(r.stack.p99).padStart(6)} ${r.stack.rps.toFixed(1).padStart(6)} ${String(errs).padStart(6)} | ${ms(r.direct.p50).padStart(9)} ${ms(r.direct.p95).padStart(6)} ${r.direct.rps.toFixed(1).padStart(6)} | ${r.p50Ratio.toFixed(2).padStart(8)}x ${r.rpsRatio.toFixed(2).padStart(8)}x`,
  );
}
console.log(
  `\nFloor at concurrency 1 (static): direct ${directAtOne.toFixed(2)} ms + HTTP round trip ${hops.httpMs.toFixed(2)} ms + 2 × gRPC round trip ${hops.grpcMs.toFixed(2)} ms = ${floor.p50.toFixed(2)} ms, a ratio of ${floor.ratio.toFixed(2)}x`,
);
console.log(
  "\nCPU ms per scrape through the stack: each service's Node process (its main thread's part), and in all as a multiple of the yardstick",
);
console.log(`pages    conc | ${SERVICES.map((service) => service.padStart(15)).join(" ")} | yardsticks`);
for (const r of rows) {
  const { cpuMsPerScrape: all, mainThreadMsPerScrape: main } = r.stack;
  const total = SERVICES.reduce((sum, service) => sum + all![service]!, 0);
  console.log(
    `${r.pages.padEnd(8)} ${String(r.concurrency).padStart(4)} | ${SERVICES.map((service) => `${all![service]!.toFixed(2)} (${main![service]!.toFixed(2)})`.padStart(15)).join(" ")} | ${(total / yardstickMs).toFixed(1).padStart(10)}`,
  );
}
console.log(
  `Yardstick: the builtin engine alone on the same page, in one process, one page at a time: ${yardstickMs.toFixed(2)} ms of CPU per page`,
);
console.log("\nThe scrape cache at max_age 0: each stack against the default, static pages, in the same run");
console.log(
  "stack                      conc | p50    p95    req/s  errors | req/s ratio  p50 ratio  p95 ratio | gateway CPU ms (default)",
);
for (const r of cacheRows) {
  const errs = Object.values(r.stack.errors).reduce((a, b) => a + b, 0);
  console.log(
    `${r.variant.padEnd(26)} ${String(r.concurrency).padStart(4)} | ${ms(r.stack.p50).padStart(6)} ${ms(r.stack.p95).padStart(6)} ${r.stack.rps.toFixed(1).padStart(6)} ${String(errs).padStart(6)} | ${r.rpsRatio.toFixed(2).padStart(10)}x ${r.p50Ratio.toFixed(2).padStart(9)}x ${r.p95Ratio.toFixed(2).padStart(9)}x | ${r.gatewayCpuMs.variant.toFixed(2).padStart(6)} (${r.gatewayCpuMs.default.toFixed(2)})`,
  );
}
if (PROFILE)
  console.log(
    `\nCPU profile of ${PROFILE}: ${path.relative(process.cwd(), path.join(PROFILE_DIR, PROFILE))}/*.cpuprofile`,
  );
const out = path.join(REPO_ROOT, "bench/results/load.json");
await mkdir(path.dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), seconds: SECONDS, warmUpRequests: WARM_UP_REQUESTS, yardstickMs, rows, cacheRows, floor }, null, 2)}\n`,
);
console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
process.exit(0);

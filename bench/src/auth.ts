/**
 * `npm run bench:auth`: what checking an API key costs.
 *
 * 1. ValidateKey latency (p50/p99) against an in-process auth gRPC server over
 *    loopback, on PGlite and on Postgres. Baseline: ValidateKey with a
 *    malformed key, refused before any database lookup (pure gRPC round trip).
 * 2. The gateway (createGateway, in process, real gRPC to that auth server) under
 *    autocannon on loopback: GET /healthz (baseline: no key check), GET
 *    /account with an unknown key (the 401 path) and with a valid key (the
 *    authorized no-op path), the valid key both with the gateway's key cache
 *    off (every request asks auth) and on (as deployed). One connection for
 *    latency, 16 for throughput.
 *
 * Prints a table and writes bench/results/auth.json.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import {
  AuthStore,
  authServiceBinding,
  generateApiKey,
  KeyCipher,
  migrate,
  openPglite,
  openPostgres,
  planLookup,
  RevocationFeed,
  type SqlDatabase,
} from "@winnow/auth";
import { connectBackends, createGateway, createLimiterFactory, Drain, startHttpServer } from "@winnow/gateway";
import { createClient, createLogger, promiseClient, startGrpcServer } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import autocannon from "autocannon";
import pg from "pg";

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const HTTP_SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 4);
const logger = createLogger("bench", "silent");

interface Backend {
  name: "pglite" | "postgres";
  database: SqlDatabase;
  dispose(): Promise<void>;
}

async function pgliteBackend(): Promise<Backend> {
  const dir = await mkdtemp(path.join(tmpdir(), "winnow-bench-"));
  const database = await openPglite(path.join(dir, "auth-db"));
  return {
    name: "pglite",
    database,
    dispose: async () => {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const schema = `auth_bench_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const database = openPostgres(url.toString(), logger);
  return {
    name: "postgres",
    database,
    dispose: async () => {
      await database.close();
      await admin(`DROP SCHEMA ${schema} CASCADE`);
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latency(call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 200; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

async function load(url: string, headers: Record<string, string>, connections: number) {
  const result = await autocannon({ url, headers, connections, duration: HTTP_SECONDS });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

type Load = Awaited<ReturnType<typeof load>>;

async function benchBackend(backend: Backend) {
  await migrate(backend.database);
  const store = new AuthStore(backend.database, new KeyCipher(randomBytes(32)));
  // Some accounts, so the key lookup is an index probe and not a scan of one row.
  for (let i = 0; i < 1000; i++) await store.createAccount(`user${i}@bench.example`, "default", generateApiKey());
  const key = generateApiKey();
  await store.createAccount("bench@bench.example", "default", key);

  const tokens = { gateway: randomBytes(32).toString("base64url"), service: randomBytes(32).toString("base64url") };
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    callers: { gateway: tokens.gateway },
    services: [
      authServiceBinding({
        store,
        revocations: new RevocationFeed(store, 1_000, logger),
        plans: planLookup({ PLAN_REQUESTS_PER_MINUTE: 2 ** 32 - 1, PLAN_MAX_CONCURRENT_SCRAPES: 64 }),
        logger,
        sessionTtlMs: 60_000,
        webhookSecretGraceMs: 0,
      }),
    ],
  });
  server.setReady(true);
  // As the gateway calls it, with its caller token (every call checked, as deployed).
  const client = promiseClient(createClient(AuthServiceClient, `127.0.0.1:${server.port}`, tokens.gateway));
  const validate = (apiKey: string) => () => client.validateKey({ apiKey });
  const malformed = await latency(validate("wnw_not-a-key"));
  const valid = await latency(validate(key.plaintext));

  const backends = connectBackends(
    { auth: `127.0.0.1:${server.port}`, renderer: "127.0.0.1:9", extractor: "127.0.0.1:9" },
    tokens,
  );
  const limiters = createLimiterFactory({ redisUrl: undefined, keyPrefix: "bench:", logger });
  // The gateway as deployed (validated keys cached, usage batched), and with its key cache off.
  const startGateway = async (keyCacheSize: number) => {
    const gateway = createGateway({
      backends,
      keyCache: { size: keyCacheSize, maxAgeMs: 60_000 },
      usageFlushMs: 1_000,
      drain: new Drain(),
      logger,
      requestTimeoutMs: 60_000,
      maxBodyBytes: 1024 * 1024,
      limiters,
      loginAttemptsPer15Min: 10,
      // Never reached: the unknown key's row measures auth's 401 path, not the limit's 429.
      keyFailuresPerMinute: 1_000_000_000,
      trustProxy: false,
    });
    const http = await startHttpServer(gateway.app, "127.0.0.1", 0);
    return {
      base: `http://127.0.0.1:${http.port}`,
      async close() {
        await http.close(1000);
        await gateway.close();
      },
    };
  };
  const cached = await startGateway(10_000);
  const uncached = await startGateway(0);
  const gateway: Record<string, { latency: Load; throughput: Load }> = {};
  const paths = {
    "GET /healthz (no key check)": [`${cached.base}/healthz`, {}],
    "GET /account, unknown key (401)": [`${cached.base}/account`, { "x-api-key": generateApiKey().plaintext }],
    "GET /account, valid key (200), key cache off": [`${uncached.base}/account`, { "x-api-key": key.plaintext }],
    "GET /account, valid key (200), cached": [`${cached.base}/account`, { "x-api-key": key.plaintext }],
  } as const;
  for (const [name, [url, headers]] of Object.entries(paths)) {
    gateway[name] = { latency: await load(url, headers, 1), throughput: await load(url, headers, 16) };
  }
  await cached.close();
  await uncached.close();
  backends.close();
  client.grpc.close();
  await server.shutdown(1000);

  return { validateKey: { malformed, valid }, gateway };
}

const results: Record<string, Awaited<ReturnType<typeof benchBackend>>> = {};
for (const open of [pgliteBackend, postgresBackend]) {
  const backend = await open();
  try {
    results[backend.name] = await benchBackend(backend);
  } finally {
    await backend.dispose();
  }
}

const ms = (value: number) => value.toFixed(3);
// Other work on the machine skews every figure; the load average says how much.
console.log(
  `\n${cpus().length} CPUs, load average ${loadavg()
    .map((load) => load.toFixed(1))
    .join(" / ")} (1/5/15 min)`,
);
console.log(`\nValidateKey over loopback gRPC (${CALLS} sequential calls each)`);
console.table(
  Object.fromEntries(
    Object.entries(results).flatMap(([backend, r]) => [
      [
        `${backend}: malformed key (baseline, no lookup)`,
        { "p50 ms": ms(r.validateKey.malformed.p50), "p99 ms": ms(r.validateKey.malformed.p99) },
      ],
      [
        `${backend}: valid key (lookup)`,
        {
          "p50 ms": ms(r.validateKey.valid.p50),
          "p99 ms": ms(r.validateKey.valid.p99),
          "p50 vs baseline": `${(r.validateKey.valid.p50 / r.validateKey.malformed.p50).toFixed(2)}x`,
        },
      ],
    ]),
  ),
);
console.log(
  `\nGateway on loopback (autocannon, ${HTTP_SECONDS} s per row; latency with 1 connection, throughput with 16)`,
);
console.table(
  Object.fromEntries(
    Object.entries(results).flatMap(([backend, r]) => {
      const baseline = r.gateway["GET /healthz (no key check)"]!;
      return Object.entries(r.gateway).map(([name, row]) => [
        `${backend}: ${name}`,
        {
          "p50 ms (1 conn)": row.latency.p50,
          "p99 ms (1 conn)": row.latency.p99,
          "req/s (16 conn)": Math.round(row.throughput.requestsPerSecond),
          "req/s vs healthz": `${(row.throughput.requestsPerSecond / baseline.throughput.requestsPerSecond).toFixed(2)}x`,
          "p50 added by key check ms": (row.latency.p50 - baseline.latency.p50).toFixed(2),
        },
      ]);
    }),
  ),
);

await mkdir(path.join(import.meta.dirname, "..", "results"), { recursive: true });
await writeFile(
  path.join(import.meta.dirname, "..", "results", "auth.json"),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadavg: loadavg(), calls: CALLS, httpSeconds: HTTP_SECONDS, results }, null, 2)}\n`,
);
process.exit(0);

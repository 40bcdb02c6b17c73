/**
 * Both scrape-cache stores, on the real thing (the gateway's embedded
 * PGlite database, and Redis under a key prefix of the test's own): entries
 * are answered with their time, older than the TTL they are not, past the
 * entry or byte bounds the oldest go first, and past an account's bounds that
 * account's oldest, never another's.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import type { SqlDatabase } from "@winnow/platform/sql";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../gateway.test-helpers.js";
import { openGatewayDatabase } from "../store/gateway-database.js";
import { migrateCache } from "./cache-migrations.js";
import type { CacheBounds, CacheStore } from "./cache-store.js";
import { RedisCacheStore } from "./redis-cache-store.js";
import { SqlCacheStore } from "./sql-cache-store.js";

const logger = createLogger("cache-test", "silent");
const BOUNDS: CacheBounds = {
  ttlSeconds: 1,
  maxEntries: 3,
  maxBytes: 1_000,
  accountMaxEntries: 3,
  accountMaxBytes: 1_000,
};
const OWNER = "account-a";

interface Opened {
  open(bounds: CacheBounds): Promise<CacheStore>;
  /** Lets a store finish trimming (the SQL store trims after each write, in the background). */
  settled(store: CacheStore): Promise<void>;
}

const STORES: { name: string; setUp(): Promise<Opened & { tearDown(): Promise<void> }> }[] = [
  {
    name: "embedded database",
    async setUp() {
      const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-cache-"));
      await seedPgliteDirectory(path.join(dataDir, "gateway-db"));
      const db = await openGatewayDatabase({ databaseUrl: undefined, dataDir, embeddedName: "gateway-db", logger });
      await migrateCache(db);
      return {
        async open(bounds) {
          // One database for the whole file: each store starts from an empty table.
          await db.query("DELETE FROM scrape_cache");
          return new SqlCacheStore(db, bounds, logger);
        },
        settled: (store) => (store as SqlCacheStore).settled(),
        async tearDown() {
          await db.close();
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "Redis",
    async setUp() {
      const redis = new Redis(TEST_REDIS_URL);
      const prefixes: string[] = [];
      return {
        async open(bounds) {
          const prefix = `winnow-test-${randomBytes(6).toString("hex")}:`;
          prefixes.push(prefix);
          return new RedisCacheStore(redis, prefix, bounds);
        },
        settled: async () => {},
        async tearDown() {
          for (const prefix of prefixes) {
            const keys = await redis.keys(`${prefix}*`);
            if (keys.length > 0) await redis.del(...keys);
          }
          redis.disconnect();
        },
      };
    },
  },
];

describe.each(STORES)("the scrape cache in the $name", ({ setUp }) => {
  let stores: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    stores = await setUp();
  });
  afterAll(async () => {
    await stores?.tearDown();
  });

  it("answers what was stored, with when, and nothing for a key never stored", async () => {
    const store = await stores.open({ ...BOUNDS, ttlSeconds: 60 });
    const before = Date.now();
    await store.set("answer-a", Buffer.from("page a"), OWNER);
    const entry = await store.get("answer-a");
    expect(entry?.value.toString()).toBe("page a");
    expect(entry!.storedAt).toBeGreaterThanOrEqual(before);
    expect(entry!.storedAt).toBeLessThanOrEqual(Date.now());
    expect(await store.get("answer-never")).toBeUndefined();
    await store.set("answer-a", Buffer.from("page a again"), OWNER);
    expect((await store.get("answer-a"))?.value.toString()).toBe("page a again");
  });

  it("answers no entry older than the TTL", async () => {
    const store = await stores.open(BOUNDS);
    await store.set("ttl-a", Buffer.from("soon stale"), OWNER);
    expect(await store.get("ttl-a")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await store.get("ttl-a")).toBeUndefined();
  });

  it("drops the oldest entries past the entry bound", async () => {
    const store = await stores.open({ ...BOUNDS, ttlSeconds: 60 });
    for (const key of ["count-1", "count-2", "count-3", "count-4"]) {
      await store.set(key, Buffer.from(key), OWNER);
      // Distinct times, so "oldest" is well defined.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await stores.settled(store);
    expect(await store.get("count-1")).toBeUndefined();
    for (const key of ["count-2", "count-3", "count-4"]) expect(await store.get(key)).toBeDefined();
  });

  it("drops the oldest entries past the byte bound", async () => {
    const store = await stores.open({ ...BOUNDS, ttlSeconds: 60, maxEntries: 100, accountMaxEntries: 100 });
    for (const key of ["bytes-1", "bytes-2", "bytes-3"]) {
      await store.set(key, Buffer.alloc(400, key), OWNER);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await stores.settled(store);
    expect(await store.get("bytes-1")).toBeUndefined();
    expect(await store.get("bytes-2")).toBeDefined();
    expect(await store.get("bytes-3")).toBeDefined();
  });

  it("keeps an account within its own bounds: one far beyond its share drops only its own oldest", async () => {
    const store = await stores.open({
      ttlSeconds: 60,
      maxEntries: 10,
      maxBytes: 10_000,
      accountMaxEntries: 4,
      accountMaxBytes: 2_000,
    });
    for (const key of ["b-1", "b-2"]) await store.set(key, Buffer.alloc(100, key), "account-b");
    // Forty entries from account A, many times its share and four times the bounds in all; some far over its bytes.
    for (let i = 0; i < 40; i++) {
      await store.set(`a-${i}`, Buffer.alloc(i % 10 === 9 ? 1_500 : 300, "a"), "account-a");
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await stores.settled(store);
    for (const key of ["b-1", "b-2"]) expect((await store.get(key))?.value.length).toBe(100);
    const kept: string[] = [];
    for (let i = 0; i < 40; i++) if (await store.get(`a-${i}`)) kept.push(`a-${i}`);
    // The newest of A's that fit its 4 entries and 2,000 bytes (Redis counts 8 more per entry, its time).
    expect(kept).toEqual(["a-38", "a-39"]);
    // A's bookkeeping follows its entries: 400 more bytes fit beside a-39 alone.
    await store.set("a-40", Buffer.alloc(400, "a"), "account-a");
    await stores.settled(store);
    expect(await store.get("a-38")).toBeUndefined();
    expect(await store.get("a-39")).toBeDefined();
    expect(await store.get("a-40")).toBeDefined();
  });
});

describe("the embedded database's trimming", () => {
  it("spends at most a tenth of its time trimming: writes during a slow pass wait for one more pass, not one each", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-cache-"));
    await seedPgliteDirectory(path.join(dataDir, "gateway-db"));
    const db = await openGatewayDatabase({ databaseUrl: undefined, dataDir, embeddedName: "gateway-db", logger });
    try {
      await migrateCache(db);
      // Each pass begins by deleting expired entries; here that takes a while, as on a large cache.
      const PASS_MS = 300;
      let passes = 0;
      const slowPasses: SqlDatabase = {
        query: async (sql, params) => {
          if (sql.startsWith("DELETE FROM scrape_cache WHERE stored_at")) {
            passes++;
            await new Promise((resolve) => setTimeout(resolve, PASS_MS));
          }
          return db.query(sql, params);
        },
        transaction: (work) => db.transaction(work),
        close: () => db.close(),
      };
      const store = new SqlCacheStore(slowPasses, { ...BOUNDS, ttlSeconds: 60 }, logger);
      // Written for two passes' time: back to back, passes would follow each other all along (three or more); paced,
      // the second waits nine times the first's length, and settled() runs it at once.
      const keys: string[] = [];
      for (const end = performance.now() + 2 * PASS_MS; performance.now() < end; ) {
        keys.push(`pace-${keys.length}`);
        await store.set(keys.at(-1)!, Buffer.from(keys.at(-1)!), OWNER);
        // Distinct times, so "oldest" is well defined.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await store.settled();
      expect(passes).toBe(2);
      const kept: string[] = [];
      for (const key of keys) if (await store.get(key)) kept.push(key);
      expect(kept).toEqual(keys.slice(-3));
    } finally {
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

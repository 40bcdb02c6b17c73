/**
 * Both scrape-cache stores, on the real thing (the gateway's embedded
 * PGlite database, and Redis under a key prefix of the test's own): entries
 * are answered with their time, older than the TTL they are not, and past the
 * entry or byte bounds the oldest go first.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@winnow/platform";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL } from "../gateway.test-helpers.js";
import { openGatewayDatabase } from "../store/gateway-database.js";
import { migrateCache } from "./cache-migrations.js";
import type { CacheBounds, CacheStore } from "./cache-store.js";
import { RedisCacheStore } from "./redis-cache-store.js";
import { SqlCacheStore } from "./sql-cache-store.js";

const logger = createLogger("cache-test", "silent");
const BOUNDS: CacheBounds = { ttlSeconds: 1, maxEntries: 3, maxBytes: 1_000 };

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
      const db = await openGatewayDatabase({ databaseUrl: undefined, dataDir, logger });
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
    await store.set("answer-a", Buffer.from("page a"));
    const entry = await store.get("answer-a");
    expect(entry?.value.toString()).toBe("page a");
    expect(entry!.storedAt).toBeGreaterThanOrEqual(before);
    expect(entry!.storedAt).toBeLessThanOrEqual(Date.now());
    expect(await store.get("answer-never")).toBeUndefined();
    await store.set("answer-a", Buffer.from("page a again"));
    expect((await store.get("answer-a"))?.value.toString()).toBe("page a again");
  });

  it("answers no entry older than the TTL", async () => {
    const store = await stores.open(BOUNDS);
    await store.set("ttl-a", Buffer.from("soon stale"));
    expect(await store.get("ttl-a")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await store.get("ttl-a")).toBeUndefined();
  });

  it("drops the oldest entries past the entry bound", async () => {
    const store = await stores.open({ ...BOUNDS, ttlSeconds: 60 });
    for (const key of ["count-1", "count-2", "count-3", "count-4"]) {
      await store.set(key, Buffer.from(key));
      // Distinct times, so "oldest" is well defined.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await stores.settled(store);
    expect(await store.get("count-1")).toBeUndefined();
    for (const key of ["count-2", "count-3", "count-4"]) expect(await store.get(key)).toBeDefined();
  });

  it("drops the oldest entries past the byte bound", async () => {
    const store = await stores.open({ ...BOUNDS, ttlSeconds: 60, maxEntries: 100 });
    for (const key of ["bytes-1", "bytes-2", "bytes-3"]) {
      await store.set(key, Buffer.alloc(400, key));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await stores.settled(store);
    expect(await store.get("bytes-1")).toBeUndefined();
    expect(await store.get("bytes-2")).toBeDefined();
    expect(await store.get("bytes-3")).toBeDefined();
  });
});

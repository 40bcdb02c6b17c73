import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import type { Redis } from "ioredis";
import { migrateCache } from "./cache-migrations.js";
import type { CacheBounds, CacheStore } from "./cache-store.js";
import { RedisCacheStore } from "./redis-cache-store.js";
import { SqlCacheStore } from "./sql-cache-store.js";

export interface CacheStoreOptions {
  bounds: CacheBounds;
  /** The gateway's Redis connection (REDIS_URL), shared with the rate limits; without it, the embedded database. */
  redis: Redis | undefined;
  keyPrefix: string;
  /** The process's database (store/gateway-database.ts), where the cache keeps its tables without Redis. */
  db: SqlDatabase;
  logger: Logger;
}

/** The cache's bounds as the gateway and the jobs worker configure them (config.ts's CACHE_*). */
export function cacheBounds(config: {
  CACHE_TTL_SECONDS: number;
  CACHE_MAX_ENTRIES: number;
  CACHE_MAX_BYTES: number;
  CACHE_ACCOUNT_MAX_ENTRIES: number;
  CACHE_ACCOUNT_MAX_BYTES: number;
}): CacheBounds {
  return {
    ttlSeconds: config.CACHE_TTL_SECONDS,
    maxEntries: config.CACHE_MAX_ENTRIES,
    maxBytes: config.CACHE_MAX_BYTES,
    accountMaxEntries: config.CACHE_ACCOUNT_MAX_ENTRIES,
    accountMaxBytes: config.CACHE_ACCOUNT_MAX_BYTES,
  };
}

/** The scrape cache's store, or none when it is turned off (no entries allowed); close() after the last scrape. */
export async function openCacheStore(
  options: CacheStoreOptions,
): Promise<{ store: CacheStore | undefined; close(): Promise<void> }> {
  const { bounds, redis, keyPrefix, db, logger } = options;
  if (bounds.maxEntries === 0) return { store: undefined, close: async () => {} };
  if (redis) return { store: new RedisCacheStore(redis, keyPrefix, bounds), close: async () => {} };
  await migrateCache(db);
  const store = new SqlCacheStore(db, bounds, logger);
  return {
    store,
    async close() {
      await store.settled();
    },
  };
}

import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import type { Redis } from "ioredis";
import { openCacheDatabase } from "./cache-database.js";
import type { CacheBounds, CacheStore } from "./cache-store.js";
import { RedisCacheStore } from "./redis-cache-store.js";
import { SqlCacheStore } from "./sql-cache-store.js";

export interface CacheStoreOptions {
  bounds: CacheBounds;
  /** The gateway's Redis connection (REDIS_URL), shared with the rate limits; without it, the embedded database. */
  redis: Redis | undefined;
  keyPrefix: string;
  dataDir: string;
  logger: Logger;
}

/**
 * The scrape cache's store, or none when it is turned off (no entries allowed) or its database does not open;
 * close() after the last scrape.
 */
export async function openCacheStore(
  options: CacheStoreOptions,
): Promise<{ store: CacheStore | undefined; close(): Promise<void> }> {
  const { bounds, redis, keyPrefix, dataDir, logger } = options;
  if (bounds.maxEntries === 0) return { store: undefined, close: async () => {} };
  if (redis) return { store: new RedisCacheStore(redis, keyPrefix, bounds), close: async () => {} };
  let db: SqlDatabase;
  try {
    db = await openCacheDatabase(dataDir);
  } catch (error) {
    // The cache saves work; without it every scrape still works, so it must not keep the gateway down.
    logger.error({ err: error, dataDir }, "the scrape cache's database did not open: scrapes run without a cache");
    return { store: undefined, close: async () => {} };
  }
  const store = new SqlCacheStore(db, bounds, logger);
  return {
    store,
    async close() {
      await store.settled();
      await db.close();
    },
  };
}

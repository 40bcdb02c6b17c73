/** A stored value and when it was stored (ms since the epoch). */
export interface CacheEntry {
  value: Buffer;
  storedAt: number;
}

/**
 * Where the scrape cache keeps its entries: Redis (redis-cache-store.ts) or
 * the gateway's embedded database (sql-cache-store.ts). Both drop entries
 * older than the TTL and, past the bounds, the oldest entries first.
 */
export interface CacheStore {
  /** The entry, unless it is missing or older than the TTL. */
  get(key: string): Promise<CacheEntry | undefined>;
  set(key: string, value: Buffer): Promise<void>;
}

export interface CacheBounds {
  /** Entries older than this are never answered and are deleted. */
  ttlSeconds: number;
  maxEntries: number;
  /** The values' bytes in all. */
  maxBytes: number;
}

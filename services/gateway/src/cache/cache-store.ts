/** A stored value and when it was stored (ms since the epoch). */
export interface CacheEntry {
  value: Buffer;
  storedAt: number;
}

/**
 * Where the scrape cache keeps its entries: Redis (redis-cache-store.ts) or
 * the gateway's embedded database (sql-cache-store.ts). Both drop entries
 * older than the TTL; past an account's bounds, that account's oldest
 * entries; then, past the bounds in all, the oldest entries first.
 */
export interface CacheStore {
  /** The entry, unless it is missing or older than the TTL. */
  get(key: string): Promise<CacheEntry | undefined>;
  /** Stores an entry on the account of `owner`, the account whose scrape made it. */
  set(key: string, value: Buffer, owner: string): Promise<void>;
}

export interface CacheBounds {
  /** Entries older than this are never answered and are deleted. */
  ttlSeconds: number;
  maxEntries: number;
  /** The values' bytes in all. */
  maxBytes: number;
  /** Entries one account's scrapes keep; beyond it the account's own oldest go, never another's. */
  accountMaxEntries: number;
  /** The values' bytes one account's scrapes keep, likewise. */
  accountMaxBytes: number;
}

import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import type { CacheBounds, CacheEntry, CacheStore } from "./cache-store.js";

/**
 * The cache in SQL (the gateway's embedded database; tables from
 * cache-migrations.ts). Entries past the bounds are deleted after each write,
 * in the background and one pass at a time, so a write costs one upsert.
 */
export class SqlCacheStore implements CacheStore {
  private evicting: Promise<void> | undefined;
  private evictAgain = false;

  constructor(
    private readonly db: SqlDatabase,
    private readonly bounds: CacheBounds,
    private readonly logger: Logger,
  ) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    const [row] = await this.db.query<{ value: string; stored_at: number }>(
      "SELECT value, stored_at FROM scrape_cache WHERE key = $1 AND stored_at > $2",
      [key, Date.now() - this.bounds.ttlSeconds * 1000],
    );
    return row && { value: Buffer.from(row.value, "base64"), storedAt: row.stored_at };
  }

  async set(key: string, value: Buffer, owner: string): Promise<void> {
    await this.db.query(
      `INSERT INTO scrape_cache (key, value, bytes, stored_at, account) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key) DO UPDATE
         SET value = excluded.value, bytes = excluded.bytes, stored_at = excluded.stored_at, account = excluded.account`,
      [key, value.toString("base64"), value.length, Date.now(), owner],
    );
    this.scheduleEviction();
  }

  /** Waits for the eviction pass in progress, if any (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.evicting) await this.evicting;
  }

  private scheduleEviction(): void {
    if (this.evicting) {
      this.evictAgain = true;
      return;
    }
    this.evicting = this.evict()
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not trim the scrape cache"))
      .finally(() => {
        this.evicting = undefined;
        if (this.evictAgain) {
          this.evictAgain = false;
          this.scheduleEviction();
        }
      });
  }

  /**
   * Deletes expired entries, then each account's oldest beyond its bounds, then the oldest beyond the bounds in all
   * (newest kept first), so that an account past its share trims its own entries before any other's.
   */
  private async evict(): Promise<void> {
    const { ttlSeconds, maxEntries, maxBytes, accountMaxEntries, accountMaxBytes } = this.bounds;
    await this.db.query("DELETE FROM scrape_cache WHERE stored_at <= $1", [Date.now() - ttlSeconds * 1000]);
    await this.deleteBeyond("PARTITION BY account", accountMaxEntries, accountMaxBytes);
    await this.deleteBeyond("", maxEntries, maxBytes);
  }

  /** Deletes the entries past `entries` or `bytes`, counting from the newest, within each window `partition` makes. */
  private async deleteBeyond(partition: string, entries: number, bytes: number): Promise<void> {
    const window = `${partition} ORDER BY stored_at DESC, key`;
    await this.db.query(
      `DELETE FROM scrape_cache WHERE key IN (
         SELECT key FROM (
           SELECT key, row_number() OVER (${window}) AS position, sum(bytes) OVER (${window}) AS bytes_so_far
             FROM scrape_cache
         ) ranked
         WHERE position > $1 OR bytes_so_far > $2
       )`,
      [entries, bytes],
    );
  }
}

import type { Logger } from "@winnow/platform";
import type { SqlDatabase } from "@winnow/platform/sql";
import type { CacheBounds, CacheEntry, CacheStore } from "./cache-store.js";

/**
 * The most of its time the cache spends trimming: after a pass that took t, the next one starts no sooner than
 * t × (1 / EVICTION_SHARE - 1) later. A pass ranks every entry, so on a full cache written on every scrape, passes back
 * to back took most of the gateway's event loop (PGlite runs on it): 31 ms of CPU per scrape at 6,000 entries
 * (bench:load, "storing every scrape"). A small cache is trimmed at once; a large one overshoots its bounds by at
 * most the writes of that wait.
 */
const EVICTION_SHARE = 0.1;

/**
 * The cache in SQL (the gateway's embedded database; tables from
 * cache-migrations.ts). Entries past the bounds are deleted after writes,
 * in the background and one pass at a time (paced by EVICTION_SHARE), so a
 * write costs one upsert.
 */
export class SqlCacheStore implements CacheStore {
  private evicting: Promise<void> | undefined;
  /** The next pass, waiting for its turn (EVICTION_SHARE). */
  private nextPass: NodeJS.Timeout | undefined;
  /** When the last pass may be followed by another (performance.now()). */
  private passAllowedAt = 0;
  /**
   * Accounts that stored entries since the last eviction pass began: the ones whose bounds the next pass checks. Not
   * empty when a pass ends: written during it, so another pass follows.
   */
  private readonly writtenBy = new Set<string>();

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
    this.writtenBy.add(owner);
    this.scheduleEviction();
  }

  /** Runs the eviction pass that waits for its turn now, and waits for passes in progress (tests, shutdown). */
  async settled(): Promise<void> {
    for (;;) {
      if (this.nextPass) {
        clearTimeout(this.nextPass);
        this.nextPass = undefined;
        this.startPass();
      }
      if (!this.evicting) return;
      await this.evicting;
    }
  }

  private scheduleEviction(): void {
    // A pass in progress is followed by another when it ends (writtenBy).
    if (this.evicting || this.nextPass) return;
    const wait = this.passAllowedAt - performance.now();
    if (wait <= 0) {
      this.startPass();
      return;
    }
    this.nextPass = setTimeout(() => {
      this.nextPass = undefined;
      this.startPass();
    }, wait);
    // Nothing is lost when the process ends first: the next pass trims what this one would have.
    this.nextPass.unref();
  }

  private startPass(): void {
    const started = performance.now();
    this.evicting = this.evict()
      .catch((error: unknown) => this.logger.warn({ err: error }, "could not trim the scrape cache"))
      .finally(() => {
        const ended = performance.now();
        this.passAllowedAt = ended + (ended - started) * (1 / EVICTION_SHARE - 1);
        this.evicting = undefined;
        if (this.writtenBy.size > 0) this.scheduleEviction();
      });
  }

  /**
   * Deletes expired entries, then the oldest of each account written since the last pass beyond its bounds, then the
   * oldest beyond the bounds in all (newest kept first), so that an account past its share trims its own entries
   * before any other's.
   */
  private async evict(): Promise<void> {
    const { ttlSeconds, maxEntries, maxBytes, accountMaxEntries, accountMaxBytes } = this.bounds;
    const owners = [...this.writtenBy];
    this.writtenBy.clear();
    await this.db.query("DELETE FROM scrape_cache WHERE stored_at <= $1", [Date.now() - ttlSeconds * 1000]);
    for (const owner of owners) await this.deleteBeyond(accountMaxEntries, accountMaxBytes, owner);
    await this.deleteBeyond(maxEntries, maxBytes);
  }

  /** Deletes the entries past `entries` or `bytes`, counting from the newest: of `owner` (by its index), or of all. */
  private async deleteBeyond(entries: number, bytes: number, owner?: string): Promise<void> {
    await this.db.query(
      `DELETE FROM scrape_cache WHERE key IN (
         SELECT key FROM (
           SELECT key, row_number() OVER newest AS position, sum(bytes) OVER newest AS bytes_so_far
             FROM scrape_cache ${owner === undefined ? "" : "WHERE account = $3"}
           WINDOW newest AS (ORDER BY stored_at DESC, key)
         ) ranked
         WHERE position > $1 OR bytes_so_far > $2
       )`,
      owner === undefined ? [entries, bytes] : [entries, bytes, owner],
    );
  }
}

import type { Redis } from "ioredis";
import type { CacheBounds, CacheEntry, CacheStore } from "./cache-store.js";

/**
 * Stores an entry and keeps the cache within its bounds, atomically: the
 * entry expires with the TTL (Redis drops it), an index sorted by time and a
 * table of sizes let the script drop expired entries' bookkeeping and then
 * the oldest entries while there are too many or too many bytes.
 *
 * KEYS: the entry, the index, the sizes, the byte total.
 * ARGV: the value, now (ms), the TTL (ms), max entries, max bytes, the entry's member name, the entries' key prefix.
 */
const SET_SCRIPT = `
local size = string.len(ARGV[1])
local total = tonumber(redis.call('GET', KEYS[4]) or '0')
local function forget(member)
  local bytes = redis.call('HGET', KEYS[3], member)
  if bytes then total = redis.call('DECRBY', KEYS[4], bytes) end
  redis.call('HDEL', KEYS[3], member)
  redis.call('ZREM', KEYS[2], member)
end
forget(ARGV[6])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
redis.call('HSET', KEYS[3], ARGV[6], size)
total = redis.call('INCRBY', KEYS[4], size)
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))) do
  forget(member)
end
while redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[4]) or total > tonumber(ARGV[5]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  forget(oldest)
  redis.call('DEL', ARGV[7] .. oldest)
end
`;

type CacheRedis = Redis & {
  cacheSet(
    entry: string,
    index: string,
    sizes: string,
    total: string,
    value: Buffer,
    now: number,
    ttlMs: number,
    maxEntries: number,
    maxBytes: number,
    member: string,
    entryPrefix: string,
  ): Promise<unknown>;
};

/** The cache in Redis, shared by every gateway replica; each value is stored behind its time (8 bytes). */
export class RedisCacheStore implements CacheStore {
  private readonly redis: CacheRedis;
  private readonly entryPrefix: string;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly bounds: CacheBounds,
  ) {
    redis.defineCommand("cacheSet", { numberOfKeys: 4, lua: SET_SCRIPT });
    this.redis = redis as CacheRedis;
    this.entryPrefix = `${keyPrefix}cache:entry:`;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const stored = await this.redis.getBuffer(this.entryPrefix + key);
    if (!stored || stored.length < 8) return undefined;
    const storedAt = Number(stored.readBigUInt64BE(0));
    if (Date.now() - storedAt > this.bounds.ttlSeconds * 1000) return undefined;
    return { value: stored.subarray(8), storedAt };
  }

  async set(key: string, value: Buffer): Promise<void> {
    const now = Date.now();
    const time = Buffer.alloc(8);
    time.writeBigUInt64BE(BigInt(now));
    const { ttlSeconds, maxEntries, maxBytes } = this.bounds;
    await this.redis.cacheSet(
      this.entryPrefix + key,
      `${this.keyPrefix}cache:index`,
      `${this.keyPrefix}cache:sizes`,
      `${this.keyPrefix}cache:bytes`,
      Buffer.concat([time, value]),
      now,
      ttlSeconds * 1000,
      maxEntries,
      maxBytes,
      key,
      this.entryPrefix,
    );
  }
}

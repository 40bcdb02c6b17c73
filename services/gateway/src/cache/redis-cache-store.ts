import type { Redis } from "ioredis";
import type { CacheBounds, CacheEntry, CacheStore } from "./cache-store.js";

/**
 * Stores an entry and keeps the cache within its bounds, atomically: the
 * entry expires with the TTL (Redis drops it), an index sorted by time and a
 * table of sizes and owners let the script drop expired entries' bookkeeping,
 * then the owner's oldest entries while the owner has too many or too many
 * bytes (its own index and total), then the oldest of all while the cache has.
 * Indexes and totals of other owners are named from the prefix as their
 * entries are dropped.
 *
 * KEYS: the entry, the index, the sizes, the byte total, the owners, the owner's index, the owner's byte total.
 * ARGV: the value, now (ms), the TTL (ms), max entries, max bytes, the entry's member name, the entries' key prefix,
 * the owner, the owner's max entries and max bytes, the prefix of the owners' indexes and totals.
 */
const SET_SCRIPT = `
local size = string.len(ARGV[1])
local total = tonumber(redis.call('GET', KEYS[4]) or '0')
local function forget(member)
  local bytes = redis.call('HGET', KEYS[3], member)
  if bytes then total = redis.call('DECRBY', KEYS[4], bytes) end
  local owner = redis.call('HGET', KEYS[5], member)
  if owner then
    -- An owner's total goes when it reaches 0 (its index, a sorted set, goes when empty).
    if bytes and redis.call('DECRBY', ARGV[11] .. 'bytes:' .. owner, bytes) <= 0 then
      redis.call('DEL', ARGV[11] .. 'bytes:' .. owner)
    end
    redis.call('ZREM', ARGV[11] .. 'index:' .. owner, member)
  end
  redis.call('HDEL', KEYS[3], member)
  redis.call('HDEL', KEYS[5], member)
  redis.call('ZREM', KEYS[2], member)
end
local function drop(member)
  forget(member)
  redis.call('DEL', ARGV[7] .. member)
end
forget(ARGV[6])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
redis.call('HSET', KEYS[3], ARGV[6], size)
redis.call('HSET', KEYS[5], ARGV[6], ARGV[8])
redis.call('ZADD', KEYS[6], ARGV[2], ARGV[6])
redis.call('INCRBY', KEYS[7], size)
total = redis.call('INCRBY', KEYS[4], size)
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))) do
  forget(member)
end
while redis.call('ZCARD', KEYS[6]) > tonumber(ARGV[9]) or tonumber(redis.call('GET', KEYS[7]) or '0') > tonumber(ARGV[10]) do
  local oldest = redis.call('ZRANGE', KEYS[6], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
end
while redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[4]) or total > tonumber(ARGV[5]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  drop(oldest)
end
`;

type CacheRedis = Redis & {
  cacheSet(
    entry: string,
    index: string,
    sizes: string,
    total: string,
    owners: string,
    ownerIndex: string,
    ownerTotal: string,
    value: Buffer,
    now: number,
    ttlMs: number,
    maxEntries: number,
    maxBytes: number,
    member: string,
    entryPrefix: string,
    owner: string,
    ownerMaxEntries: number,
    ownerMaxBytes: number,
    ownerPrefix: string,
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
    redis.defineCommand("cacheSet", { numberOfKeys: 7, lua: SET_SCRIPT });
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

  async set(key: string, value: Buffer, owner: string): Promise<void> {
    const now = Date.now();
    const time = Buffer.alloc(8);
    time.writeBigUInt64BE(BigInt(now));
    const { ttlSeconds, maxEntries, maxBytes, accountMaxEntries, accountMaxBytes } = this.bounds;
    const ownerPrefix = `${this.keyPrefix}cache:account:`;
    await this.redis.cacheSet(
      this.entryPrefix + key,
      `${this.keyPrefix}cache:index`,
      `${this.keyPrefix}cache:sizes`,
      `${this.keyPrefix}cache:bytes`,
      `${this.keyPrefix}cache:owners`,
      `${ownerPrefix}index:${owner}`,
      `${ownerPrefix}bytes:${owner}`,
      Buffer.concat([time, value]),
      now,
      ttlSeconds * 1000,
      maxEntries,
      maxBytes,
      key,
      this.entryPrefix,
      owner,
      accountMaxEntries,
      accountMaxBytes,
      ownerPrefix,
    );
  }
}

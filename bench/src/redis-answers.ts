import { Redis } from "ioredis";

/** Whether Redis at `url` answers a ping ("none" never does): benches skip their Redis side when it does not. */
export async function redisAnswers(url: string): Promise<boolean> {
  if (url === "none") return false;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 });
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

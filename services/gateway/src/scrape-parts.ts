/**
 * What the gateway and the jobs worker both open to scrape: the backends, the key limiters (in Redis or this
 * process's memory), their database (embedded or Postgres) and the scrape cache's store on it or in Redis.
 */
import type { Logger } from "@winnow/platform";
import type { z } from "zod";
import { type Backends, connectBackends } from "./backends.js";
import { cacheBounds, openCacheStore } from "./cache/open-cache-store.js";
import type { scrapeConfigShape } from "./config.js";
import { createLimiterFactory, type LimiterFactory } from "./http/rate-limits.js";
import { openGatewayDatabase } from "./store/gateway-database.js";

type ScrapeConfig = z.infer<z.ZodObject<typeof scrapeConfigShape>>;

export async function openScrapeParts(config: ScrapeConfig, embeddedName: "gateway-db" | "jobs-db", logger: Logger) {
  const backends: Backends = connectBackends(
    { auth: config.AUTH_ADDR, renderer: config.RENDERER_ADDR, extractor: config.EXTRACTOR_ADDR },
    { gateway: config.WINNOW_GATEWAY_TOKEN.current, service: config.WINNOW_SERVICE_TOKEN.current },
  );
  // Without Redis, the key limits are this process's own, as they are each gateway replica's.
  const limiters: LimiterFactory = createLimiterFactory({
    redisUrl: config.REDIS_URL,
    keyPrefix: config.REDIS_KEY_PREFIX,
    logger,
  });
  const db = await openGatewayDatabase({
    databaseUrl: config.GATEWAY_DATABASE_URL,
    dataDir: config.WINNOW_DATA_DIR,
    embeddedName,
    logger,
  });
  // The scrape cache lives in Redis when there is one, else in this process's database.
  const cache = await openCacheStore({
    bounds: cacheBounds(config),
    redis: limiters.redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    db,
    logger,
  });
  return {
    backends,
    limiters,
    db,
    cache,
    /** Listing settings as both read them (the gateway adds its page cap). */
    listing: {
      detailConcurrency: config.LISTING_DETAIL_CONCURRENCY,
      honourRobots: !config.LISTING_IGNORE_ROBOTS,
      crawlDelayMs: config.LISTING_CRAWL_DELAY_MS,
    },
    async close() {
      await cache.close();
      await db.close();
      backends.close();
      await limiters.close();
    },
  };
}

import { env, MAX_REQUEST_TIMEOUT_MS, metricsConfig } from "@winnow/platform";
import { z } from "zod";
import { LISTING_DEFAULTS } from "./listing/read-listing.js";

/**
 * What the gateway and the jobs worker (jobs/jobs-config.ts) both scrape with: the backends, the key checks and
 * limits, the scrape cache, the gateway database, whole listings. See docs/configuration.md.
 */
export const scrapeConfigShape = {
  AUTH_ADDR: env.grpcTarget("127.0.0.1:50051"),
  RENDERER_ADDR: env.grpcTarget("127.0.0.1:50052"),
  EXTRACTOR_ADDR: env.grpcTarget("127.0.0.1:50053"),
  /** Sent to auth: the gateway's role there. */
  WINNOW_GATEWAY_TOKEN: env.callerToken(),
  /** Sent to the renderer and the extractor, which never see the gateway's token. */
  WINNOW_SERVICE_TOKEN: env.callerToken(),
  /** One deadline for a whole scrape, passed down every hop. */
  REQUEST_TIMEOUT_MS: env.positiveInt(60_000, MAX_REQUEST_TIMEOUT_MS),
  /** Validated keys kept in memory (trusted while auth's revocation feed is current); 0 checks every key with auth. */
  KEY_CACHE_SIZE: env.nonNegativeInt(10_000, 10_000_000),
  /** A cached key is checked with auth again after this long, so plan changes arrive. */
  KEY_CACHE_MAX_AGE_MS: env.positiveInt(60_000, 3_600_000),
  /** How often usage counted in memory is written to auth (and once more on shutdown). */
  USAGE_FLUSH_MS: env.positiveInt(1_000, 600_000),
  /** Rate limits in Redis, shared by every replica; without it, in this process's memory. */
  REDIS_URL: z.url({ protocol: /^rediss?$/, message: "must be a redis:// or rediss:// URL" }).optional(),
  /** Prefix of the gateway's Redis keys, so deployments sharing a Redis do not share counts. */
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default("winnow:"),
  /** max_age when a request does not say (seconds): 0 answers every scrape afresh unless it asks for the cache. */
  CACHE_DEFAULT_MAX_AGE: env.nonNegativeInt(0, 31_536_000),
  /** Cache entries older than this (seconds) are never answered and are deleted. */
  CACHE_TTL_SECONDS: env.positiveInt(86_400, 31_536_000),
  /** Cache entries kept in all (pages and extractions); the oldest go first. 0 turns the scrape cache off. */
  CACHE_MAX_ENTRIES: env.nonNegativeInt(10_000, 10_000_000),
  /** Bytes of cached pages and extractions in all; the oldest go first. */
  CACHE_MAX_BYTES: env.positiveInt(256 * 1024 * 1024, 64 * 1024 * 1024 * 1024),
  /** Cache entries one account's scrapes keep; beyond them its own oldest go, never another account's. */
  CACHE_ACCOUNT_MAX_ENTRIES: env.positiveInt(1_000, 10_000_000),
  /** Bytes of cached pages and extractions one account's scrapes keep; likewise. */
  CACHE_ACCOUNT_MAX_BYTES: env.positiveInt(32 * 1024 * 1024, 64 * 1024 * 1024 * 1024),
  /** Every account reads and writes one cache: one account's scrape answers another's. Off: each account its own. */
  CACHE_SHARED: env.boolean(false),
  /** Keep every scrape's page and answer, even at max_age 0 (which reads nothing), for later requests with max_age. */
  CACHE_STORE_ALWAYS: env.boolean(false),
  /**
   * Where the embedded databases live: the gateway's (the scrape cache without REDIS_URL) and the jobs worker's
   * (batch jobs; its scrape cache), one each, as PGlite is one process's.
   */
  WINNOW_DATA_DIR: z.string().min(1).default(".data"),
  /**
   * A Postgres server for the gateway database (batch jobs, the scrape cache without REDIS_URL) instead of the
   * embedded PGlite ones: the gateway and jobs worker replicas then share it.
   */
  GATEWAY_DATABASE_URL: env.postgresUrl().optional(),
  /** Listing pages one scrape may ask to read (options.pages); asking more answers 400. */
  MAX_LISTING_PAGES: env.positiveInt(LISTING_DEFAULTS.maxPages, 10_000),
  /** Records' own pages (options.details) one scrape reads at once per host. */
  LISTING_DETAIL_CONCURRENCY: env.positiveInt(LISTING_DEFAULTS.detailConcurrency, 32),
  /** Whole listings read pages robots.txt disallows: only for sites the operator owns. */
  LISTING_IGNORE_ROBOTS: env.boolean(false),
  /** The least pause between two pages of one host a whole listing reads (a site's robots.txt may ask more). */
  LISTING_CRAWL_DELAY_MS: env.nonNegativeInt(LISTING_DEFAULTS.crawlDelayMs, 60_000),
};

/** The gateway's environment variables; see docs/configuration.md. */
export const configShape = {
  HOST: env.host("127.0.0.1"),
  PORT: env.port(8080),
  ...metricsConfig(9464),
  ...scrapeConfigShape,
  MAX_BODY_BYTES: env.positiveInt(1024 * 1024, 16 * 1024 * 1024),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
  LOG_LEVEL: env.logLevel(),
  /** The jobs worker (jobs-main.ts), which runs batch jobs' pages and webhooks; /batch/scrape asks it. */
  JOBS_ADDR: env.grpcTarget("127.0.0.1:50054"),
  /** URLs at most in one batch job. */
  BATCH_MAX_URLS: env.positiveInt(1_000, 100_000),
  /**
   * Consecutive failed log-ins per email and address (within a day) before they are blocked (15 minutes, doubling
   * with each block); ten times that: failed log-ins per email in a day before only known browsers log in, and
   * log-in and sign-up attempts per client address in 15 minutes (dashboard/login-limits.ts).
   */
  LOGIN_ATTEMPTS_PER_15_MIN: env.positiveInt(10, 10_000),
  /** Failed API-key checks per client address and minute; past them, 429 without asking auth. */
  KEY_FAILURES_PER_MINUTE: env.positiveInt(60, 1_000_000),
  /**
   * Express's "trust proxy": false (default, direct connections), a hop count
   * or the proxies' addresses/subnets (recommended behind a proxy), or true
   * (any X-Forwarded-For: spoofable). Behind a TLS-terminating proxy, it makes
   * the client address (per-address limits) and Secure cookies right.
   */
  TRUST_PROXY: z
    .string()
    .default("false")
    .transform((value) =>
      value === "true" ? true : value === "false" ? false : /^\d+$/.test(value) ? Number(value) : value,
    ),
};

import { fileURLToPath } from "node:url";
import { defaultAnswerPages } from "@winnow/client/mcp";
import { type JobsClient, type Logger, WinnowError } from "@winnow/platform";
import express, { type ErrorRequestHandler } from "express";
import helmet from "helmet";
import type { Backends } from "./backends.js";
import { batchRouter } from "./batch/batch-routes.js";
import type { CacheStore } from "./cache/cache-store.js";
import { ScrapeCache } from "./cache/scrape-cache.js";
import { dashboardRouter } from "./dashboard/dashboard.js";
import { renderDocsPage } from "./docs/docs-page.js";
import { openApiDocument } from "./docs/openapi.js";
import { firecrawlRouter } from "./firecrawl/firecrawl-route.js";
import { accessLog } from "./http/access-log.js";
import type { Drain } from "./http/drain.js";
import { jsonBody } from "./http/json-body.js";
import { sendProblem } from "./http/problem.js";
import type { LimiterFactory } from "./http/rate-limits.js";
import { hop, requestContext } from "./http/request-context.js";
import { requireApiKey } from "./keys/api-key.js";
import { KeyCheck } from "./keys/key-check.js";
import { KeyFailureLimit } from "./keys/key-failures.js";
import { KeyLimits } from "./keys/key-limits.js";
import { UsageCounter } from "./keys/usage.js";
import { LISTING_DEFAULTS, type ListingSettings } from "./listing/read-listing.js";
import { mcpRouter } from "./mcp/mcp-route.js";
import { scrapeHandler } from "./scrape/scrape.js";
import type { ListingLimits } from "./scrape/scrape-request.js";
import { SECRETS_TTL_MS, WebhookSecretCache } from "./webhooks/webhook-secret-cache.js";
import { describeWebhookSecrets, webhookSecretRouter } from "./webhooks/webhook-secret-routes.js";

export interface AppOptions {
  backends: Backends;
  /** Validated keys kept in memory (0: none) and how long each is trusted before auth is asked again. */
  keyCache: { size: number; maxAgeMs: number };
  /** How often usage counted in memory is written to auth. */
  usageFlushMs: number;
  drain: Drain;
  logger: Logger;
  requestTimeoutMs: number;
  maxBodyBytes: number;
  limiters: LimiterFactory;
  loginAttemptsPer15Min: number;
  /** Failed API-key checks per client address and minute before it gets 429 without auth being asked. */
  keyFailuresPerMinute: number;
  /** The jobs worker that batch jobs (POST /batch/scrape) run on, and the URLs a job may have; without it the routes do not exist. */
  jobs?: { client: JobsClient; maxUrls: number };
  /** Express's "trust proxy": which proxies' X-Forwarded-* to believe (client address, TLS). */
  trustProxy: boolean | number | string;
  /** Repeat scrapes from cache: the store, max_age's default, and whether accounts share it. Absent: no cache. */
  cache?: { store: CacheStore | undefined; defaultMaxAgeSeconds: number; shared: boolean; storeAlways: boolean };
  /** Whole listings (options.pages, options.details): the page cap, records' pages at once per host, robots.txt, pace. */
  listing?: ListingLimits & ListingSettings;
}

/** One SVG icon for every page (/docs, the dashboard), at the address browsers ask for unprompted. */
const FAVICON = fileURLToPath(new URL("../assets/favicon.svg", import.meta.url));

/** The HTTP app, and the background work it owns (the key cache's revocation feed, usage writes). */
export interface Gateway {
  app: express.Express;
  /** After the last request: stops following revocations, writes the usage counted so far and what the cache keeps. */
  close(): Promise<void>;
}

/** The public HTTP surface. Every API failure leaves as application/problem+json; the dashboard answers HTML. */
export function createGateway(options: AppOptions): Gateway {
  const { backends, drain, logger, requestTimeoutMs, maxBodyBytes } = options;
  const keys = new KeyCheck(backends.auth, { ...options.keyCache, logger });
  const usage = new UsageCounter(backends.auth, options.usageFlushMs, logger);
  // Batch jobs send webhooks (from the jobs worker): their secrets are shown and rotated here, asked of auth at most
  // once a few seconds per account.
  const webhookSecrets = options.jobs && new WebhookSecretCache(backends.auth, SECRETS_TTL_MS);
  const scrapeCache = options.cache?.store && new ScrapeCache(options.cache.store, backends.extractor, logger);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const openApiJson = JSON.stringify(openApiDocument());
  const docsHtml = renderDocsPage();
  app.set("trust proxy", options.trustProxy);
  if (options.trustProxy === true) {
    logger.warn(
      "TRUST_PROXY=true believes every X-Forwarded-For, so any client can choose its own address (and escape " +
        "per-address limits); set the proxies' hop count or addresses instead",
    );
  }
  // Helmet's defaults, except: no upgrade-insecure-requests, which on a plain-http
  // deployment would send the dashboard's forms to an https:// that is not there;
  // and Referrer-Policy same-origin, as no-referrer makes browsers send
  // "Origin: null" on same-site form posts, which the CSRF check must refuse.
  app.use(
    helmet({
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
      referrerPolicy: { policy: "same-origin" },
    }),
  );
  const keyLimits = new KeyLimits(options.limiters, Math.ceil((2 * requestTimeoutMs) / 1000), logger);
  const apiKey = requireApiKey(keys, new KeyFailureLimit(options.limiters, options.keyFailuresPerMinute));

  app.get("/favicon.ico", (_req, res) => {
    res.sendFile(FAVICON, { maxAge: "1d", headers: { "content-type": "image/svg+xml" } });
  });
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    // A draining gateway leaves the load balancer's rotation first.
    const down = drain.draining ? ["gateway (draining)"] : await backends.notReady();
    if (down.length === 0) res.json({ status: "ready" });
    else res.status(503).json({ status: "not ready", waiting_for: down });
  });

  app.use(requestContext(requestTimeoutMs));
  app.use(accessLog(logger));
  app.use(drain.middleware());

  app.get("/openapi.json", (_req, res) => {
    res.type("application/json").send(openApiJson);
  });
  app.get("/docs", (_req, res) => {
    res.setHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");
    res.type("text/html").send(docsHtml);
  });

  app.get("/", (_req, res) => {
    res.redirect(303, "/dashboard");
  });
  app.use(
    "/dashboard",
    dashboardRouter({
      auth: backends.auth,
      limiters: options.limiters,
      webhookSecrets,
      loginAttemptsPer15Min: options.loginAttemptsPer15Min,
      logger,
    }),
  );

  // Checks the key and nothing else: for clients testing their key, and the benchmark's authorized no-op path.
  app.get("/account", apiKey, keyLimits.requests(), async (_req, res) => {
    const { accountId, keyId, limits } = res.locals;
    // What this account's webhook deliveries are signed with (see the docs' webhooks section).
    const secrets = webhookSecrets && (await webhookSecrets.secrets(accountId!, hop(res)));
    res.json({
      account_id: accountId,
      key_id: keyId,
      ...(secrets && describeWebhookSecrets(secrets)),
      limits: {
        plan: limits!.plan,
        requests_per_minute: limits!.requestsPerMinute,
        max_concurrent_scrapes: limits!.maxConcurrentScrapes,
      },
    });
  });
  if (webhookSecrets) {
    app.use("/account/webhook-secret", webhookSecretRouter(webhookSecrets, [apiKey, keyLimits.requests()]));
  }

  const scrapeDeps = {
    backends,
    cache: scrapeCache,
    defaultMaxAgeSeconds: options.cache?.defaultMaxAgeSeconds ?? 0,
    sharedCache: options.cache?.shared ?? false,
    storeAlways: options.cache?.storeAlways ?? false,
  };
  const scrapeChecks = [apiKey, keyLimits.requests(), keyLimits.scrapeSlot(), usage.middleware()];
  app.post(
    "/scrape",
    ...scrapeChecks,
    ...jsonBody(maxBodyBytes),
    scrapeHandler(scrapeDeps, options.listing ?? LISTING_DEFAULTS),
  );
  // Firecrawl's scrape requests, on the same path: for users who come with Firecrawl's clients and habits.
  app.use(
    firecrawlRouter({
      scrape: scrapeDeps,
      keyed: scrapeChecks,
      maxBodyBytes,
      toWinnowError: (error) => toWinnowError(error, logger),
    }),
  );

  if (options.jobs) {
    app.use(
      "/batch/scrape",
      batchRouter({
        jobs: options.jobs.client,
        maxUrls: options.jobs.maxUrls,
        listing: options.listing ?? LISTING_DEFAULTS,
        maxBodyBytes,
        apiKey,
        countRequest: keyLimits.requests(),
      }),
    );
  }

  // Winnow's tools for AI agents (MCP); the scrape slot and usage are taken by the tool's own call to /scrape.
  app.use("/mcp", mcpRouter({ keyed: [apiKey, keyLimits.requests()], maxBodyBytes, pages: defaultAnswerPages() }));

  app.all("/scrape", (req, res) => {
    res.setHeader("Allow", "POST");
    throw new WinnowError("method-not-allowed", `${req.method} is not allowed on /scrape; use POST.`);
  });
  app.use((req) => {
    throw new WinnowError(
      "not-found",
      `No route for ${req.method} ${req.path}. The API is POST /scrape (see /docs); the dashboard is at /dashboard.`,
    );
  });
  app.use(errorHandler(logger));
  return {
    app,
    async close() {
      keys.close();
      await usage.close();
      await scrapeCache?.settled();
    },
  };
}

/** Maps body-parser failures and anything unexpected onto problem types; never leaks internals. */
function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    sendProblem(res, toWinnowError(error, logger));
  };
}

function toWinnowError(error: unknown, logger: Logger): WinnowError {
  if (error instanceof WinnowError) {
    if (error.type === "internal") logger.error({ err: error.cause ?? error }, "backend failed");
    return error;
  }
  const parserType = (error as { type?: unknown })?.type;
  switch (parserType) {
    case "entity.parse.failed":
      return new WinnowError("invalid-request", `The body is not valid JSON: ${(error as Error).message}`);
    case "entity.too.large":
      return new WinnowError("payload-too-large", "The request body is larger than the gateway accepts.");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new WinnowError("unsupported-media-type", (error as Error).message);
    case "request.aborted":
      return new WinnowError("invalid-request", "The request body was not received completely.");
  }
  // zlib's own errors (body-parser passes them on with no type): a body that its Content-Encoding does not decode.
  // gzip and deflate say Z_*, brotli's decoder ERR__ERROR_* (BROTLI_DECODER_ERROR_* with its prefix cut).
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^(Z_|ERR__ERROR_)/.test(code))
    return new WinnowError("invalid-request", "The request body could not be decoded as its Content-Encoding says.");
  logger.error({ err: error }, "unexpected error");
  return new WinnowError("internal", "unexpected error", { cause: error });
}

import {
  createLogger,
  keepFilesPrivate,
  loadConfigOrExit,
  logFatalErrors,
  onShutdownSignal,
  reportListening,
  serveMetrics,
  startGrpcServer,
  warnOnUnsupportedNode,
} from "@winnow/platform";
import { authServiceBinding } from "./auth-service.js";
import { AuthStore } from "./auth-store.js";
import { authConfigShape } from "./config.js";
import { openDatabase } from "./database.js";
import { closeDevAccount, seedDevAccount } from "./dev-account.js";
import { loadKeyCipher } from "./key-cipher.js";
import { migrate } from "./migrations.js";
import { planLookup } from "./plans.js";
import { RevocationFeed } from "./revocation-feed.js";

// The embedded database, the dev key and the generated encryption key are for this user's eyes only.
keepFilesPrivate();
const config = loadConfigOrExit(authConfigShape);

const logger = createLogger("auth", config.LOG_LEVEL);
logFatalErrors(logger);
warnOnUnsupportedNode((warning) => logger.warn(warning));
await serveMetrics(config.METRICS_HOST, config.METRICS_PORT, logger);

const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.WINNOW_DATA_DIR, logger });
await migrate(database);
const cipher = await loadKeyCipher({
  configured: config.WINNOW_ENCRYPTION_KEY,
  dataDir: config.WINNOW_DATA_DIR,
  logger,
  devAccount: config.WINNOW_DEV_ACCOUNT,
});
const store = new AuthStore(database, cipher);
if (cipher.rotating) {
  const { resealed, unreadable } = await store.resealSecrets();
  logger.info(
    { resealed, unreadable },
    "sealed stored keys and webhook secrets anew under the first WINNOW_ENCRYPTION_KEY; once every auth replica has done so, keep only that key",
  );
}
const revocations = new RevocationFeed(store, config.KEY_CACHE_LEASE_MS, logger, config.GRPC_MAX_CONNECTION_AGE_MS);
const devAccount = { store, revocations, dataDir: config.WINNOW_DATA_DIR, logger };
if (config.WINNOW_DEV_ACCOUNT) await seedDevAccount({ ...devAccount, fixedKey: config.WINNOW_DEV_API_KEY });
else await closeDevAccount(devAccount);

const server = await startGrpcServer({
  host: config.GRPC_HOST,
  port: config.GRPC_PORT,
  maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS,
  maxConnectionAgeGraceMs: config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
  logger,
  callers: { gateway: config.WINNOW_GATEWAY_TOKEN.accepted, admin: config.WINNOW_ADMIN_TOKEN.accepted },
  services: [
    authServiceBinding({
      store,
      revocations,
      plans: planLookup(config),
      logger,
      sessionTtlMs: config.SESSION_TTL_HOURS * 3_600_000,
      webhookSecretGraceMs: config.WEBHOOK_SECRET_GRACE_HOURS * 3_600_000,
    }),
  ],
});
reportListening();
server.setReady(true);

onShutdownSignal(logger, async () => {
  // Watch streams never end by themselves; gateways move to another replica.
  revocations.close();
  await server.shutdown(config.SHUTDOWN_GRACE_MS);
  await database.close();
});

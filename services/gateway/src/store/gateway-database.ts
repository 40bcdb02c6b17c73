import path from "node:path";
import type { Logger } from "@winnow/platform";
import { openPglite, openPostgres, type SqlDatabase } from "@winnow/platform/sql";

export interface GatewayDatabaseOptions {
  /** A Postgres server (shared by every gateway replica); without it the embedded PGlite database under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  logger: Logger;
}

/**
 * The gateway's own database: what it must keep across restarts (batch jobs
 * and their results). Each feature brings its tables in its own migration list.
 */
export async function openGatewayDatabase(options: GatewayDatabaseOptions): Promise<SqlDatabase> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.logger, "the gateway database");
  return openPglite(path.join(options.dataDir, "gateway-db"));
}

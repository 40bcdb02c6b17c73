import path from "node:path";
import type { Logger } from "@winnow/platform";
import { openPglite, openPostgres, type SqlDatabase } from "@winnow/platform/sql";

export interface GatewayDatabaseOptions {
  /** A Postgres server (shared by every gateway and jobs worker replica); without it an embedded PGlite database. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** The embedded database's directory under dataDir: one per process, as PGlite is one process's alone. */
  embeddedName: "gateway-db" | "jobs-db";
  logger: Logger;
}

/**
 * The gateway's own database: what it must keep across restarts (batch jobs
 * and their results, the scrape cache without Redis). Each feature brings its
 * tables in its own migration list. On Postgres the gateway and the jobs
 * worker share one; embedded, each has its own.
 */
export async function openGatewayDatabase(options: GatewayDatabaseOptions): Promise<SqlDatabase> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.logger, "the gateway database");
  return openPglite(path.join(options.dataDir, options.embeddedName));
}

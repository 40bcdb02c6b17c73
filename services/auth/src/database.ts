import path from "node:path";
import type { Logger } from "@winnow/platform";
import { openPglite, openPostgres as openServer, type SqlDatabase } from "@winnow/platform/sql";

export { openPglite, type SqlDatabase, type SqlExecutor } from "@winnow/platform/sql";

export interface DatabaseOptions {
  /** A Postgres server; without it the embedded PGlite database under dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  logger: Logger;
}

export async function openDatabase(options: DatabaseOptions): Promise<SqlDatabase> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.logger);
  return openPglite(path.join(options.dataDir, "auth-db"));
}

export function openPostgres(connectionString: string, logger: Logger): SqlDatabase {
  return openServer(connectionString, logger, "the account database");
}

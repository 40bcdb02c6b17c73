import path from "node:path";
import { openPglite, type SqlDatabase } from "@winnow/platform/sql";
import { migrateCache } from "./cache-migrations.js";

/** The gateway's embedded database (PGlite under the data directory), with the cache's tables. */
export async function openCacheDatabase(dataDir: string): Promise<SqlDatabase> {
  const db = await openPglite(path.join(dataDir, "gateway-db"));
  await migrateCache(db);
  return db;
}

import { type Migration, migrate, type SqlDatabase } from "@winnow/platform/sql";

/** Applied in order, each once; never edit one that has shipped, append a new one. */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "scrape cache",
    sql: `
      CREATE TABLE scrape_cache (
        key text PRIMARY KEY,
        -- base64: PGlite reads bytea several times slower than text.
        value text NOT NULL,
        bytes integer NOT NULL,
        -- ms since the epoch: read back as a number by PGlite and pg alike.
        stored_at double precision NOT NULL
      );
      CREATE INDEX scrape_cache_by_age ON scrape_cache (stored_at);
    `,
  },
  {
    version: 2,
    name: "scrape cache entries per account",
    sql: `
      -- The account whose scrape stored the entry ('' for entries from before): bounds hold per account too.
      ALTER TABLE scrape_cache ADD COLUMN account text NOT NULL DEFAULT '';
      CREATE INDEX scrape_cache_by_account ON scrape_cache (account, stored_at);
    `,
  },
];

/** Brings the scrape cache's tables up to date; their record is scrape_cache_migrations. */
export async function migrateCache(db: SqlDatabase): Promise<void> {
  await migrate(db, "scrape_cache_migrations", MIGRATIONS);
}

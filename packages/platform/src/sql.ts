/**
 * The SQL layer services with a database share: the same Postgres dialect on
 * an embedded PGlite database (one directory, one process) or on a server
 * (DATABASE_URL), and a migration runner whose record table each service
 * names, so services sharing one Postgres database keep their own lists.
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import pg from "pg";
import { lockDirectory } from "./directory-lock.js";
import type { Logger } from "./logger.js";
import { ownerOnlyDirectory, removeGroupAndOtherAccess } from "./private-files.js";
import { WinnowError } from "./problems.js";

export interface SqlExecutor {
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDatabase extends SqlExecutor {
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * PGlite (Postgres compiled to WASM) on disk. One process at a time may open
 * a directory, so it is locked first: a second process fails with a
 * StartupError before it reads (or migrates) a database another one is using.
 * The directory is its user's alone: PGlite writes its files 0666 whatever the
 * umask, so their modes are corrected after it opens (and those of a database
 * made by an older version).
 */
export async function openPglite(directory: string): Promise<SqlDatabase> {
  await ownerOnlyDirectory(directory);
  const unlock = await lockDirectory(
    directory,
    "an embedded database serves one process: stop the other one, or give this one its own WINNOW_DATA_DIR",
  );
  const db = await PGlite.create(directory).catch(async (error: unknown) => {
    await unlock();
    throw error;
  });
  await removeGroupAndOtherAccess(directory);
  const executor = (target: PGlite | Transaction): SqlExecutor => ({
    async query<Row>(sql: string, params?: unknown[]) {
      return (await target.query<Row>(sql, params)).rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  });
  return {
    ...executor(db),
    transaction: (work) => db.transaction((tx) => work(executor(tx))),
    async close() {
      await db.close();
      await unlock();
    },
  };
}

/** `what` names the database in errors: "the account database is unavailable". */
export function openPostgres(connectionString: string, logger: Logger, what = "the database"): SqlDatabase {
  // Without a connect timeout a call would wait forever for an unreachable server.
  const pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 5_000 });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on("error", (error) => logger.warn({ err: error }, "idle Postgres connection failed"));
  const unavailable = (error: unknown): never => unavailableError(error, what);
  const executor = (target: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async query<Row>(sql: string, params?: unknown[]) {
      return (await target.query(sql, params).catch(unavailable)).rows as Row[];
    },
    async exec(sql: string) {
      await target.query(sql).catch(unavailable);
    },
  });
  return {
    ...executor(pool),
    async transaction(work) {
      const client = await pool.connect().catch(unavailable);
      // A connection whose ROLLBACK failed is in an unknown state: destroy it rather than reuse it.
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await work(executor(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/**
 * A lost or refused server connection is our outage, not the caller's fault:
 * it becomes a retryable "backend-unavailable" (503 at the gateway), never a
 * 401 or a 500. SQL errors (with a SQLSTATE outside classes 08 and 57) pass through.
 */
function unavailableError(error: unknown, what: string): never {
  const code = (error as { code?: unknown }).code;
  const sqlState = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (sqlState && !sqlState.startsWith("08") && !sqlState.startsWith("57")) throw error;
  throw new WinnowError("backend-unavailable", `${what} is unavailable`, { cause: error });
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Brings a service's tables up to date in one transaction, recording what
 * was applied in `table`. The advisory lock (per schema and table) makes
 * replicas that start together apply migrations one at a time: the second
 * one finds them recorded and does nothing.
 */
export async function migrate(db: SqlDatabase, table: string, migrations: readonly Migration[]): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.${table}'))`);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS ${table} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )
    `);
    const rows = await tx.query<{ version: number }>(`SELECT version FROM ${table}`);
    const applied = new Set(rows.map((row) => row.version));
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query(`INSERT INTO ${table} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
    }
  });
}

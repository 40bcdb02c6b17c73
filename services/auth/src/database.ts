import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { WinnowError, type Logger } from "@winnow/platform";
import pg from "pg";

/** What the auth store needs from SQL: the same Postgres dialect on PGlite and on a server. */
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

/** PGlite (Postgres compiled to WASM) on disk; one process at a time may open a directory. */
export async function openPglite(directory: string): Promise<SqlDatabase> {
  await mkdir(path.dirname(directory), { recursive: true });
  const db = await PGlite.create(directory);
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
    close: () => db.close(),
  };
}

export function openPostgres(connectionString: string, logger: Logger): SqlDatabase {
  // Without a connect timeout a call would wait forever for an unreachable server.
  const pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 5_000 });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on("error", (error) => logger.warn({ err: error }, "idle Postgres connection failed"));
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
function unavailable(error: unknown): never {
  const code = (error as { code?: unknown }).code;
  const sqlState = typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (sqlState && !sqlState.startsWith("08") && !sqlState.startsWith("57")) throw error;
  throw new WinnowError("backend-unavailable", "the account database is unavailable", { cause: error });
}

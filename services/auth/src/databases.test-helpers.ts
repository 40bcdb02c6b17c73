import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import pg from "pg";
import { openPglite, openPostgres, type SqlDatabase } from "./database.js";
import { KeyCipher } from "./key-cipher.js";
import { migrate } from "./migrations.js";

/** The Postgres server of the dev and CI machines (trust auth). */
const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export const BACKENDS = ["pglite", "postgres"] as const;
export type Backend = (typeof BACKENDS)[number];

export const silentLogger = createLogger("auth-test", "silent");

/** A cipher with a throwaway key, as WINNOW_ENCRYPTION_KEY would give; `key` to build rotations from it. */
const testKey = randomBytes(32);
export const testCipher = Object.assign(new KeyCipher(testKey), { key: testKey });

export interface TestDatabase {
  database: SqlDatabase;
  /** Where a PGlite database lives (a fresh temp dir); usable as WINNOW_DATA_DIR. */
  dataDir: string;
  /** Closes the database and opens it again, as a restarted service would. */
  reopen(): Promise<void>;
  /** Closes `database` and deletes everything the test made. */
  dispose(): Promise<void>;
}

/** A migrated, empty database: PGlite in a temp dir, or a fresh Postgres schema dropped afterwards. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-auth-"));
  if (backend === "pglite") {
    const open = () => openPglite(path.join(dataDir, "auth-db"));
    await seedPgliteDirectory(path.join(dataDir, "auth-db"));
    const database = await open();
    await migrate(database);
    const opened: TestDatabase = {
      database,
      dataDir,
      async reopen() {
        await opened.database.close();
        opened.database = await open();
        await migrate(opened.database);
      },
      async dispose() {
        await opened.database.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
    return opened;
  }
  const schema = `auth_test_${randomBytes(6).toString("hex")}`;
  await withAdminClient((client) => client.query(`CREATE SCHEMA ${schema}`));
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const database = openPostgres(url.toString(), silentLogger);
  await migrate(database);
  const opened: TestDatabase = {
    database,
    dataDir,
    async reopen() {
      await opened.database.close();
      opened.database = openPostgres(url.toString(), silentLogger);
      await migrate(opened.database);
    },
    async dispose() {
      await opened.database.close();
      await withAdminClient((client) => client.query(`DROP SCHEMA ${schema} CASCADE`));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return opened;
}

async function withAdminClient(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

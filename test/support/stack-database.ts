/**
 * A database of one test stack's own on the machine's Postgres server (TEST_DATABASE_URL): its services' tables
 * there, each under its own migration record as deployments share one database, rather than in four embedded PGlite
 * databases, which cost each stack about 7 s of CPU to open and migrate. Dropped with the stack.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface StackDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createStackDatabase(): Promise<StackDatabase> {
  const name = `winnow_stack_${randomBytes(6).toString("hex")}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE: a service that did not stop cleanly must not keep its database behind.
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

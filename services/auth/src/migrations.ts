import { type Migration, migrate as runMigrations, type SqlDatabase } from "@winnow/platform/sql";

/** Applied in order, each once; never edit one that has shipped, append a new one. */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "accounts and api keys",
    sql: `
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        email text NOT NULL UNIQUE,
        plan text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE INDEX api_keys_active_by_account ON api_keys (account_id) WHERE revoked_at IS NULL;
    `,
  },
  {
    version: 2,
    name: "passwords, encrypted keys, sessions and usage",
    sql: `
      ALTER TABLE accounts ADD COLUMN password_hash text;
      ALTER TABLE api_keys ADD COLUMN key_ciphertext text;
      CREATE TABLE sessions (
        token_hash text PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sessions_by_account ON sessions (account_id);
      CREATE TABLE key_usage (
        key_id text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        day date NOT NULL,
        scrapes bigint NOT NULL DEFAULT 0,
        tokens_in bigint NOT NULL DEFAULT 0,
        tokens_out bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, day)
      );
    `,
  },
  {
    version: 3,
    name: "revocation order",
    // Every revocation takes the next number, so gateways can follow them with a cursor.
    sql: `
      CREATE SEQUENCE key_revocation_seq;
      ALTER TABLE api_keys ADD COLUMN revoked_seq bigint;
      CREATE INDEX api_keys_by_revocation ON api_keys (revoked_seq) WHERE revoked_seq IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: "usage by answer path",
    // What answered each day's scrapes: the cache, a learned template, the builtin engine or the model.
    sql: `
      ALTER TABLE key_usage
        ADD COLUMN cache_scrapes bigint NOT NULL DEFAULT 0,
        ADD COLUMN template_scrapes bigint NOT NULL DEFAULT 0,
        ADD COLUMN builtin_scrapes bigint NOT NULL DEFAULT 0,
        ADD COLUMN model_scrapes bigint NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 5,
    name: "webhook secrets",
    // Random per account, sealed like keys; expires_at is null for the current one, set for one replaced by a
    // rotation (valid until then). At most one current secret per account, whoever makes it first.
    sql: `
      CREATE TABLE webhook_secrets (
        id text PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        secret_ciphertext text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      );
      CREATE UNIQUE INDEX webhook_secrets_current ON webhook_secrets (account_id) WHERE expires_at IS NULL;
    `,
  },
];

/** Brings auth's tables up to date; their record is auth_migrations. */
export async function migrate(db: SqlDatabase): Promise<void> {
  await runMigrations(db, "auth_migrations", MIGRATIONS);
}

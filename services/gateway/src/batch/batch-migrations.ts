import { type Migration, migrate, type SqlDatabase } from "@winnow/platform/sql";

/** Applied in order, each once; never edit one that has shipped, append a new one. */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "batch jobs and their pages",
    sql: `
      CREATE TABLE batch_jobs (
        id uuid PRIMARY KEY,
        account_id text NOT NULL,
        key_id text NOT NULL,
        plan jsonb NOT NULL,
        request jsonb NOT NULL,
        webhook jsonb,
        total integer NOT NULL,
        state text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        expires_at timestamptz
      );
      CREATE INDEX batch_jobs_running_by_key ON batch_jobs (key_id) WHERE state = 'running';
      CREATE INDEX batch_jobs_by_expiry ON batch_jobs (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE batch_pages (
        job_id uuid NOT NULL REFERENCES batch_jobs (id) ON DELETE CASCADE,
        index integer NOT NULL,
        url text NOT NULL,
        state text NOT NULL,
        result jsonb,
        finished_at timestamptz,
        PRIMARY KEY (job_id, index)
      );
    `,
  },
  {
    version: 2,
    name: "jobs follow their key's plan as it is now",
    sql: "ALTER TABLE batch_jobs DROP COLUMN plan;",
  },
  {
    version: 3,
    name: "batch pages still queued, by job",
    // Whether a job has a page left queued is asked after each of its pages: without this it read the job's
    // finished pages first, a cost that grew with the job (twice the time at 10,000 pages).
    sql: "CREATE INDEX batch_pages_queued ON batch_pages (job_id) WHERE state = 'queued'",
  },
  {
    version: 4,
    name: "what a page still being read has read so far",
    // A whole listing is one page of its job and reads for minutes: its pages and records so far count in the job's
    // progress while it runs, not only at its end.
    sql: "ALTER TABLE batch_pages ADD COLUMN reading jsonb",
  },
];

/** Brings the batch tables up to date; their record is batch_migrations. */
export async function migrateBatchTables(db: SqlDatabase): Promise<void> {
  await migrate(db, "batch_migrations", MIGRATIONS);
}

/**
 * Learned templates in SQL: PGlite under WINNOW_DATA_DIR/extractor-db, or
 * the Postgres server of DATABASE_URL, shared by every extractor replica.
 * The extractor's own tables and migration record (extractor_migrations),
 * so they sit beside auth's in one database. Counts are added in the
 * database (INSERT ... ON CONFLICT), so replicas learning at once add up.
 * Templates are keyed by tenant, host and signature (store.ts).
 */
import path from "node:path";
import type { Logger } from "@winnow/platform";
import { type Migration, migrate, openPglite, openPostgres, type SqlDatabase } from "@winnow/platform/sql";
import { locatorKey } from "./locator.js";
import type { KnownTemplate, Site, TemplateKey } from "./signature.js";
import {
  type LocatorRecord,
  type LocatorUpdate,
  MAX_LOCATORS_PER_FIELD,
  type StoreBounds,
  type TemplateStore,
  type TemplateSummary,
  TRUST_AGREEMENTS,
  trustedFields,
} from "./store.js";

/** Applied in order, each once; never edit one that has shipped, append a new one. */
export const TEMPLATE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "templates and locators",
    sql: `
      CREATE TABLE extractor_templates (
        id bigserial PRIMARY KEY,
        host text NOT NULL,
        signature text NOT NULL,
        paths text[] NOT NULL,
        pages integer NOT NULL DEFAULT 0,
        seen integer NOT NULL DEFAULT 1,
        last_used timestamptz NOT NULL DEFAULT now(),
        UNIQUE (host, signature)
      );
      CREATE INDEX extractor_templates_by_use ON extractor_templates (last_used);
      CREATE TABLE extractor_locators (
        template_id bigint NOT NULL REFERENCES extractor_templates (id) ON DELETE CASCADE,
        field text NOT NULL,
        locator_key text NOT NULL,
        locator jsonb NOT NULL,
        agree integer NOT NULL DEFAULT 0,
        disagree integer NOT NULL DEFAULT 0,
        PRIMARY KEY (template_id, field, locator_key)
      );
    `,
  },
  {
    version: 2,
    name: "templates per tenant",
    // Templates learned before tenants were learned from every account's pages: they become the shared templates
    // (tenant ''), which answer only when an operator shares templates, where they are what shared mode always had.
    // No default after that: a template is never written without saying whose it is.
    sql: `
      ALTER TABLE extractor_templates ADD COLUMN tenant text NOT NULL DEFAULT '';
      ALTER TABLE extractor_templates ALTER COLUMN tenant DROP DEFAULT;
      ALTER TABLE extractor_templates DROP CONSTRAINT extractor_templates_host_signature_key;
      ALTER TABLE extractor_templates ADD CONSTRAINT extractor_templates_site_signature_key UNIQUE (tenant, host, signature);
    `,
  },
];

export const MIGRATIONS_TABLE = "extractor_migrations";

export interface TemplateDatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  logger: Logger;
}

/** Opens and migrates the extractor's database: its own PGlite directory (auth has another), or the shared server. */
export async function openTemplateDatabase(options: TemplateDatabaseOptions): Promise<SqlDatabase> {
  const db = options.databaseUrl
    ? openPostgres(options.databaseUrl, options.logger, "the template database")
    : await openPglite(path.join(options.dataDir, "extractor-db"));
  await migrate(db, MIGRATIONS_TABLE, TEMPLATE_MIGRATIONS);
  return db;
}

/** After the database failed to open, how long before a call tries again (calls meanwhile fail at once). */
const REOPEN_AFTER_MS = 30_000;

/**
 * The store on its database, opened on first use. A database that cannot be
 * opened (a server down at start) costs the template answers, not the
 * extractor: calls fail until a later one, at most every REOPEN_AFTER_MS,
 * opens it.
 */
export class SqlTemplateStore implements TemplateStore {
  private opening: Promise<SqlDatabase> | undefined;
  private failedAt: number | undefined;

  constructor(
    private readonly open: () => Promise<SqlDatabase>,
    private readonly bounds: StoreBounds,
  ) {}

  /** The open database; call at start to open it early (its failure is also the next call's). */
  database(): Promise<SqlDatabase> {
    if (!this.opening || (this.failedAt !== undefined && Date.now() - this.failedAt >= REOPEN_AFTER_MS)) {
      this.failedAt = undefined;
      this.opening = this.open().catch((error: unknown) => {
        this.failedAt = Date.now();
        throw error;
      });
    }
    return this.opening;
  }

  async templates(site: Site): Promise<KnownTemplate[]> {
    return (await this.database()).query<KnownTemplate>(
      "SELECT signature, paths, pages FROM extractor_templates WHERE tenant = $1 AND host = $2 ORDER BY last_used DESC",
      [site.tenant, site.host],
    );
  }

  async use(template: TemplateKey): Promise<number> {
    const rows = await (await this.database()).query<{ seen: number }>(
      "UPDATE extractor_templates SET last_used = now(), seen = seen + 1 WHERE tenant = $1 AND host = $2 AND signature = $3 RETURNING seen",
      [template.tenant, template.host, template.signature],
    );
    return rows[0]?.seen ?? 0;
  }

  async locators(template: TemplateKey): Promise<LocatorRecord[]> {
    return (await this.database()).query<LocatorRecord>(
      "SELECT l.field, l.locator, l.agree, l.disagree FROM extractor_locators l JOIN extractor_templates t ON t.id = l.template_id WHERE t.tenant = $1 AND t.host = $2 AND t.signature = $3",
      [template.tenant, template.host, template.signature],
    );
  }

  async record(template: TemplateKey, paths: string[], updates: LocatorUpdate[]): Promise<void> {
    await (await this.database()).transaction(async (tx) => {
      const [{ id }] = (await tx.query<{ id: string }>(
        `INSERT INTO extractor_templates (tenant, host, signature, paths, pages) VALUES ($1, $2, $3, $4, 1)
         ON CONFLICT (tenant, host, signature) DO UPDATE SET pages = extractor_templates.pages + 1, last_used = now()
         RETURNING id`,
        [template.tenant, template.host, template.signature, paths],
      )) as [{ id: string }];
      for (const update of updates) {
        await tx.query(
          `INSERT INTO extractor_locators (template_id, field, locator_key, locator, agree, disagree) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (template_id, field, locator_key) DO UPDATE
           SET agree = extractor_locators.agree + excluded.agree, disagree = extractor_locators.disagree + excluded.disagree`,
          [id, update.field, locatorKey(update.locator), JSON.stringify(update.locator), update.agree, update.disagree],
        );
      }
      // Bounds: the best locators per field (trusted first, then by agreement less disagreement), then templates by
      // use.
      await tx.query(
        `DELETE FROM extractor_locators l USING (
           SELECT field, locator_key, row_number() OVER (PARTITION BY field ORDER BY (agree >= $2 AND disagree = 0) DESC, agree - disagree DESC) AS rank
           FROM extractor_locators WHERE template_id = $1
         ) ranked
         WHERE l.template_id = $1 AND l.field = ranked.field AND l.locator_key = ranked.locator_key AND ranked.rank > $3`,
        [id, TRUST_AGREEMENTS, MAX_LOCATORS_PER_FIELD],
      );
      await tx.query(
        "DELETE FROM extractor_templates WHERE id IN (SELECT id FROM extractor_templates WHERE tenant = $1 AND host = $2 ORDER BY last_used DESC, id DESC OFFSET $3)",
        [template.tenant, template.host, this.bounds.templatesPerHost],
      );
      await tx.query(
        "DELETE FROM extractor_templates WHERE id IN (SELECT id FROM extractor_templates ORDER BY last_used DESC, id DESC OFFSET $1)",
        [this.bounds.templates],
      );
    });
  }

  async list(host: string): Promise<TemplateSummary[]> {
    const db = await this.database();
    const rows = await db.query<{ id: string; tenant: string; signature: string; pages: number; last_used: Date }>(
      "SELECT id, tenant, signature, pages, last_used FROM extractor_templates WHERE host = $1 ORDER BY tenant, last_used DESC",
      [host],
    );
    const summaries: TemplateSummary[] = [];
    for (const row of rows) {
      const records = await db.query<LocatorRecord>(
        "SELECT field, locator, agree, disagree FROM extractor_locators WHERE template_id = $1",
        [row.id],
      );
      summaries.push({
        tenant: row.tenant,
        signature: row.signature,
        pages: row.pages,
        lastUsed: new Date(row.last_used),
        locators: records.length,
        trustedFields: trustedFields(records),
      });
    }
    return summaries;
  }

  async forget(host: string, tenant?: string): Promise<number> {
    const rows = await (await this.database()).query(
      "DELETE FROM extractor_templates WHERE host = $1 AND ($2::text IS NULL OR tenant = $2) RETURNING id",
      [host, tenant ?? null],
    );
    return rows.length;
  }

  async close(): Promise<void> {
    const db = await this.opening?.catch(() => undefined);
    await db?.close();
  }
}

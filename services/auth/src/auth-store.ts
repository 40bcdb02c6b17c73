import { randomUUID } from "node:crypto";
import { WinnowError } from "@winnow/platform";
import type { ScrapesByPath, UsageDay } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import type { ApiKey } from "./api-key.js";
import type { SqlDatabase, SqlExecutor } from "./database.js";
import type { KeyCipher } from "./key-cipher.js";

export interface AccountRecord {
  id: string;
  email: string;
  plan: string;
  createdAt: Date;
}

/** An account's active key as the dashboard shows it; plaintext undefined for a key stored before encryption. */
export interface ShownKey {
  id: string;
  plaintext: string | undefined;
  createdAt: Date;
}

interface UsageTotals {
  scrapes: number;
  tokensIn: number;
  tokensOut: number;
}

/** Usage to add to one key's counters; `day` (YYYY-MM-DD, UTC) defaults to today. */
export interface UsageEntry extends UsageTotals {
  keyId: string;
  day?: string;
  /** The same scrapes by what answered them, when the caller says. */
  byPath?: ScrapesByPath;
}

export interface AccountSummary {
  account: AccountRecord;
  keyId: string | undefined;
  usage: UsageTotals;
}

export interface ActiveKey {
  keyId: string;
  accountId: string;
  plan: string;
}

interface AccountRow {
  id: string;
  email: string;
  plan: string;
  created_at: Date;
}

const UNIQUE_VIOLATION = "23505";

/**
 * Accounts, their API keys, sessions and usage. Nothing is cached here:
 * every answer comes from the database (gateways cache validated keys and
 * follow revocations through revocationsAfter). Keys are stored as their hash (for
 * lookup) and sealed with `cipher` (so the dashboard can show them).
 */
export class AuthStore {
  constructor(
    private readonly db: SqlDatabase,
    private readonly cipher: KeyCipher,
  ) {}

  /** Creates an account with its first key; a taken email is "already-exists". */
  async createAccount(email: string, plan: string, key: ApiKey, passwordHash?: string): Promise<AccountRecord> {
    try {
      return await this.db.transaction(async (tx) => {
        const [row] = await tx.query<AccountRow>(
          "INSERT INTO accounts (id, email, plan, password_hash) VALUES ($1, $2, $3, $4) RETURNING *",
          [randomUUID(), email, plan, passwordHash ?? null],
        );
        await this.insertKey(tx, row!.id, key);
        return toAccount(row!);
      });
    } catch (error) {
      if (isUniqueViolation(error, "accounts_email_key")) {
        throw new WinnowError("already-exists", `an account with email ${email} already exists`, { cause: error });
      }
      throw error;
    }
  }

  /** The account with this email, created (without keys) if there is none; safe to race. */
  async ensureAccount(email: string, plan: string): Promise<AccountRecord> {
    await this.db.query("INSERT INTO accounts (id, email, plan) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING", [
      randomUUID(),
      email,
      plan,
    ]);
    const [row] = await this.db.query<AccountRow>("SELECT * FROM accounts WHERE email = $1", [email]);
    return toAccount(row!);
  }

  /** The unrevoked key with this hash, if any. */
  findActiveKey(hash: string): Promise<ActiveKey | undefined> {
    return this.activeKey("k.key_hash = $1", hash);
  }

  /** The unrevoked key with this id, if any. */
  findActiveKeyById(keyId: string): Promise<ActiveKey | undefined> {
    return this.activeKey("k.id = $1", keyId);
  }

  private async activeKey(match: "k.key_hash = $1" | "k.id = $1", value: string): Promise<ActiveKey | undefined> {
    const [row] = await this.db.query<ActiveKey>(
      `SELECT k.id AS "keyId", k.account_id AS "accountId", a.plan
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE ${match} AND k.revoked_at IS NULL`,
      [value],
    );
    return row;
  }

  /**
   * Makes `key` the account's only valid key, revoking the others, in one
   * transaction. A key this account held before is reinstated (a fixed dev
   * key set again after a rotation). How many keys were revoked; undefined
   * when there is no such account.
   */
  async replaceKeys(accountId: string, key: ApiKey): Promise<number | undefined> {
    return this.db.transaction(async (tx) => {
      // Locking the account row serialises concurrent replacements, so none
      // can miss a key inserted by another and leave two keys valid.
      const [account] = await tx.query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE", [accountId]);
      if (!account) return undefined;
      const revoked = await revoke(tx, "account_id = $1 AND id <> $2", [accountId, key.id]);
      await this.insertKey(tx, accountId, key);
      return revoked.length;
    });
  }

  /** Revokes every valid key of the account with this email; how many there were. */
  async revokeKeysOf(email: string): Promise<number> {
    return this.db.transaction(
      async (tx) => (await revoke(tx, "account_id = (SELECT id FROM accounts WHERE email = $1)", [email])).length,
    );
  }

  /** The newest revocation's cursor ("0" when there is none): where a feed that starts now begins. */
  async latestRevocation(): Promise<string> {
    const [row] = await this.db.query<{ seq: string }>(
      "SELECT COALESCE(max(revoked_seq), 0)::text AS seq FROM api_keys",
    );
    return row!.seq;
  }

  /** Keys revoked after `cursor`, oldest first, at most `limit`; each with its own cursor. */
  async revocationsAfter(cursor: string, limit: number): Promise<{ keyId: string; seq: string }[]> {
    return this.db.query(
      `SELECT id AS "keyId", revoked_seq::text AS seq FROM api_keys
        WHERE revoked_seq > $1::bigint ORDER BY revoked_seq LIMIT $2`,
      [cursor, limit],
    );
  }

  /** The account with this email and its password hash (undefined when it has none). */
  async findLogin(email: string): Promise<{ accountId: string; passwordHash: string | undefined } | undefined> {
    const [row] = await this.db.query<{ id: string; password_hash: string | null }>(
      "SELECT id, password_hash FROM accounts WHERE email = $1",
      [email],
    );
    return row && { accountId: row.id, passwordHash: row.password_hash ?? undefined };
  }

  /** Records a session by the hash of its token; the account's expired sessions are dropped on the way. */
  async createSession(accountId: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query("DELETE FROM sessions WHERE account_id = $1 AND expires_at <= now()", [accountId]);
      await tx.query("INSERT INTO sessions (token_hash, account_id, expires_at) VALUES ($1, $2, $3)", [
        tokenHash,
        accountId,
        expiresAt,
      ]);
    });
  }

  /** The account of an unexpired session. */
  async findSessionAccount(tokenHash: string): Promise<string | undefined> {
    const [row] = await this.db.query<{ account_id: string }>(
      "SELECT account_id FROM sessions WHERE token_hash = $1 AND expires_at > now()",
      [tokenHash],
    );
    return row?.account_id;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.query("DELETE FROM sessions WHERE token_hash = $1", [tokenHash]);
  }

  async findAccount(accountId: string): Promise<AccountRecord | undefined> {
    const [row] = await this.db.query<AccountRow>("SELECT * FROM accounts WHERE id = $1", [accountId]);
    return row && toAccount(row);
  }

  /** The account's active key, opened; undefined when it has none. */
  async findShownKey(accountId: string): Promise<ShownKey | undefined> {
    const [row] = await this.db.query<{ id: string; key_ciphertext: string | null; created_at: Date }>(
      "SELECT id, key_ciphertext, created_at FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1",
      [accountId],
    );
    if (!row) return undefined;
    const plaintext = row.key_ciphertext === null ? undefined : this.cipher.open(row.key_ciphertext, row.id);
    return { id: row.id, plaintext, createdAt: row.created_at };
  }

  /**
   * Seals anew under the current encryption key every stored key sealed under a previous one (a rotation of
   * WINNOW_ENCRYPTION_KEY); what opens under no configured key is left as it is and counted.
   */
  async resealKeys(): Promise<{ resealed: number; unreadable: number }> {
    const rows = await this.db.query<{ id: string; key_ciphertext: string }>(
      "SELECT id, key_ciphertext FROM api_keys WHERE key_ciphertext IS NOT NULL",
    );
    let resealed = 0;
    let unreadable = 0;
    for (const row of rows) {
      let sealed: string | undefined;
      try {
        sealed = this.cipher.resealed(row.key_ciphertext, row.id);
      } catch {
        unreadable += 1;
        continue;
      }
      if (sealed === undefined) continue;
      // Only where the row still holds what was read: a key replaced meanwhile keeps its new value.
      await this.db.query("UPDATE api_keys SET key_ciphertext = $1 WHERE id = $2 AND key_ciphertext = $3", [
        sealed,
        row.id,
        row.key_ciphertext,
      ]);
      resealed += 1;
    }
    return { resealed, unreadable };
  }

  /**
   * Adds each entry to its key's counters for its UTC day (today when it
   * names none), in one transaction; the ids of entries whose key does not exist.
   */
  async recordUsage(entries: UsageEntry[]): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const unknown: string[] = [];
      for (const entry of entries) {
        const rows = await tx.query(
          `INSERT INTO key_usage (key_id, day, scrapes, tokens_in, tokens_out,
                                  cache_scrapes, template_scrapes, builtin_scrapes, model_scrapes)
           SELECT id, COALESCE($2::date, (now() AT TIME ZONE 'UTC')::date), $3, $4, $5, $6, $7, $8, $9
             FROM api_keys WHERE id = $1
           ON CONFLICT (key_id, day) DO UPDATE SET
             scrapes = key_usage.scrapes + excluded.scrapes,
             tokens_in = key_usage.tokens_in + excluded.tokens_in,
             tokens_out = key_usage.tokens_out + excluded.tokens_out,
             cache_scrapes = key_usage.cache_scrapes + excluded.cache_scrapes,
             template_scrapes = key_usage.template_scrapes + excluded.template_scrapes,
             builtin_scrapes = key_usage.builtin_scrapes + excluded.builtin_scrapes,
             model_scrapes = key_usage.model_scrapes + excluded.model_scrapes
           RETURNING key_id`,
          [
            entry.keyId,
            entry.day ?? null,
            entry.scrapes,
            entry.tokensIn,
            entry.tokensOut,
            entry.byPath?.cache ?? 0,
            entry.byPath?.template ?? 0,
            entry.byPath?.builtin ?? 0,
            entry.byPath?.model ?? 0,
          ],
        );
        if (rows.length === 0) unknown.push(entry.keyId);
      }
      return unknown;
    });
  }

  /** The account's usage per key and day over the last `days` UTC days (today included), newest first. */
  async usage(accountId: string, days: number): Promise<UsageDay[]> {
    // Counters are bigint; float8 comes back as a JS number on both drivers (exact below 2^53).
    const rows = await this.db.query<UsageDay & Required<{ [path in keyof ScrapesByPath]: number }>>(
      `SELECT to_char(u.day, 'YYYY-MM-DD') AS day, u.key_id AS "keyId", u.scrapes::float8 AS scrapes,
              u.tokens_in::float8 AS "tokensIn", u.tokens_out::float8 AS "tokensOut",
              u.cache_scrapes::float8 AS cache, u.template_scrapes::float8 AS template,
              u.builtin_scrapes::float8 AS builtin, u.model_scrapes::float8 AS model
         FROM key_usage u JOIN api_keys k ON k.id = u.key_id
        WHERE k.account_id = $1 AND u.day > (now() AT TIME ZONE 'UTC')::date - $2::int
        ORDER BY u.day DESC, u.key_id`,
      [accountId, days],
    );
    return rows.map(({ day, keyId, scrapes, tokensIn, tokensOut, cache, template, builtin, model }) => ({
      day,
      keyId,
      scrapes,
      tokensIn,
      tokensOut,
      byPath: { cache, template, builtin, model },
    }));
  }

  /** Every account with its active key and all-time usage, oldest first. */
  async listAccounts(): Promise<AccountSummary[]> {
    const rows = await this.db.query<AccountRow & { key_id: string | null } & UsageTotals>(
      `SELECT a.*,
              (SELECT id FROM api_keys WHERE account_id = a.id AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1) AS key_id,
              COALESCE(SUM(u.scrapes), 0)::float8 AS scrapes,
              COALESCE(SUM(u.tokens_in), 0)::float8 AS "tokensIn",
              COALESCE(SUM(u.tokens_out), 0)::float8 AS "tokensOut"
         FROM accounts a
         LEFT JOIN api_keys k ON k.account_id = a.id
         LEFT JOIN key_usage u ON u.key_id = k.id
        GROUP BY a.id
        ORDER BY a.created_at, a.email`,
    );
    return rows.map((row) => ({
      account: toAccount(row),
      keyId: row.key_id ?? undefined,
      usage: { scrapes: row.scrapes, tokensIn: row.tokensIn, tokensOut: row.tokensOut },
    }));
  }

  private async insertKey(tx: SqlExecutor, accountId: string, key: ApiKey): Promise<void> {
    const inserted = await tx.query(
      `INSERT INTO api_keys (id, account_id, key_hash, key_ciphertext) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET revoked_at = NULL, revoked_seq = NULL, key_ciphertext = excluded.key_ciphertext
         WHERE api_keys.account_id = excluded.account_id AND api_keys.key_hash = excluded.key_hash
       RETURNING id`,
      [key.id, accountId, key.hash, this.cipher.seal(key.plaintext, key.id)],
    );
    // Only reachable with a key id issued to another account: a reused key, never a random one.
    if (inserted.length === 0) throw new Error(`key ${key.id} already belongs to another account`);
  }
}

/**
 * Revokes the valid keys matching `where`, numbering each revocation. The
 * numbers are taken under one lock held until commit, so revocations become
 * visible in the order of their numbers: a reader that has seen number n has
 * seen every revocation before it, and a cursor never skips one.
 */
async function revoke(tx: SqlExecutor, where: string, params: unknown[]): Promise<{ id: string }[]> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.key_revocations'))");
  return tx.query(
    `UPDATE api_keys SET revoked_at = now(), revoked_seq = nextval('key_revocation_seq')
      WHERE revoked_at IS NULL AND ${where} RETURNING id`,
    params,
  );
}

function toAccount(row: AccountRow): AccountRecord {
  return { id: row.id, email: row.email, plan: row.plan, createdAt: row.created_at };
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === UNIQUE_VIOLATION &&
    (error as { constraint?: unknown }).constraint === constraint
  );
}

import { randomUUID } from "node:crypto";
import { WinnowError } from "@winnow/platform";
import type { SqlDatabase, SqlExecutor } from "./database.js";

export interface AccountRecord {
  id: string;
  email: string;
  plan: string;
  createdAt: Date;
}

/** A key as stored: its public id and the hash of its plaintext. */
export interface StoredKey {
  id: string;
  hash: string;
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
 * Accounts and their API keys. Nothing is cached: every answer comes from the
 * database, so a revoked key fails on the very next call on every replica.
 */
export class AuthStore {
  constructor(private readonly db: SqlDatabase) {}

  /** Creates an account with its first key; a taken email is "already-exists". */
  async createAccount(email: string, plan: string, key: StoredKey): Promise<AccountRecord> {
    try {
      return await this.db.transaction(async (tx) => {
        const [row] = await tx.query<AccountRow>(
          "INSERT INTO accounts (id, email, plan) VALUES ($1, $2, $3) RETURNING *",
          [randomUUID(), email, plan],
        );
        await insertKey(tx, row!.id, key);
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
  async findActiveKey(hash: string): Promise<ActiveKey | undefined> {
    const [row] = await this.db.query<ActiveKey>(
      `SELECT k.id AS "keyId", k.account_id AS "accountId", a.plan
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    return row;
  }

  /**
   * Makes `key` the account's only valid key, revoking the others, in one
   * transaction. A key this account held before is reinstated (a fixed dev
   * key set again after a rotation). False when there is no such account.
   */
  async replaceKeys(accountId: string, key: StoredKey): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      // Locking the account row serialises concurrent replacements, so none
      // can miss a key inserted by another and leave two keys valid.
      const [account] = await tx.query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE", [accountId]);
      if (!account) return false;
      await tx.query("UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL AND id <> $2", [
        accountId,
        key.id,
      ]);
      await insertKey(tx, accountId, key);
      return true;
    });
  }
}

async function insertKey(tx: SqlExecutor, accountId: string, key: StoredKey): Promise<void> {
  const inserted = await tx.query(
    `INSERT INTO api_keys (id, account_id, key_hash) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET revoked_at = NULL
       WHERE api_keys.account_id = excluded.account_id AND api_keys.key_hash = excluded.key_hash
     RETURNING id`,
    [key.id, accountId, key.hash],
  );
  // Only reachable with a key id issued to another account: a reused key, never a random one.
  if (inserted.length === 0) throw new Error(`key ${key.id} already belongs to another account`);
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

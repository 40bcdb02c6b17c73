import { randomBytes, randomUUID } from "node:crypto";
import { WinnowError } from "@winnow/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "./api-key.js";
import { AuthStore } from "./auth-store.js";
import { BACKENDS, openTestDatabase, type TestDatabase, testCipher } from "./databases.test-helpers.js";
import { KeyCipher } from "./key-cipher.js";
import { migrate } from "./migrations.js";

const email = () => `${randomUUID()}@example.com`;

describe.each(BACKENDS)("AuthStore on %s", (backend) => {
  let db: TestDatabase;
  let store: AuthStore;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
    store = new AuthStore(db.database, testCipher);
  });
  afterAll(() => db?.dispose());

  it("creates an account whose first key is active", async () => {
    const key = generateApiKey();
    const address = email();
    const account = await store.createAccount(address, "default", key);
    expect(account).toMatchObject({ email: address, plan: "default" });
    expect(account.createdAt).toBeInstanceOf(Date);
    expect(await store.findActiveKey(key.hash)).toEqual({ keyId: key.id, accountId: account.id, plan: "default" });
  });

  it("answers already-exists for a taken email and keeps the first account's key alone", async () => {
    const address = email();
    await store.createAccount(address, "default", generateApiKey());
    const second = generateApiKey();
    await expect(store.createAccount(address, "default", second)).rejects.toMatchObject({ type: "already-exists" });
    await expect(store.createAccount(address, "default", second)).rejects.toBeInstanceOf(WinnowError);
    expect(await store.findActiveKey(second.hash)).toBeUndefined();
  });

  it("knows nothing of a key it never stored", async () => {
    expect(await store.findActiveKey(generateApiKey().hash)).toBeUndefined();
  });

  it("replaces an account's keys: the old one stops working, the new one works", async () => {
    const old = generateApiKey();
    const account = await store.createAccount(email(), "default", old);
    const replacement = generateApiKey();
    expect(await store.replaceKeys(account.id, replacement)).toBe(1);
    expect(await store.findActiveKey(old.hash)).toBeUndefined();
    expect(await store.findActiveKey(replacement.hash)).toMatchObject({ keyId: replacement.id, accountId: account.id });
  });

  it("leaves exactly one key valid after concurrent replacements", async () => {
    const account = await store.createAccount(email(), "default", generateApiKey());
    const keys = [generateApiKey(), generateApiKey(), generateApiKey()];
    await Promise.all(keys.map((key) => store.replaceKeys(account.id, key)));
    const active = await Promise.all(keys.map((key) => store.findActiveKey(key.hash)));
    expect(active.filter(Boolean)).toHaveLength(1);
  });

  it("reinstates a key the account held before", async () => {
    const first = generateApiKey();
    const account = await store.createAccount(email(), "default", first);
    await store.replaceKeys(account.id, generateApiKey());
    await store.replaceKeys(account.id, first);
    expect(await store.findActiveKey(first.hash)).toMatchObject({ accountId: account.id });
  });

  it("refuses a key that belongs to another account", async () => {
    const key = generateApiKey();
    await store.createAccount(email(), "default", key);
    const other = await store.createAccount(email(), "default", generateApiKey());
    await expect(store.replaceKeys(other.id, key)).rejects.toThrow(/another account/);
    expect(await store.findActiveKey(key.hash)).toMatchObject({ keyId: key.id });
  });

  it("answers false when replacing the keys of an unknown account", async () => {
    expect(await store.replaceKeys(randomUUID(), generateApiKey())).toBeUndefined();
  });

  it("ensures an account exists exactly once, even when asked concurrently", async () => {
    const address = email();
    const [a, b] = await Promise.all([
      store.ensureAccount(address, "default"),
      store.ensureAccount(address, "default"),
    ]);
    expect(a).toEqual(b);
    expect(await store.ensureAccount(address, "default")).toEqual(a);
  });

  it("runs migrations again, even concurrently, without changing anything", async () => {
    await Promise.all([migrate(db.database), migrate(db.database)]);
    const rows = await db.database.query<{ version: number }>("SELECT version FROM auth_migrations");
    expect(rows.map((row) => row.version).sort()).toEqual([1, 2, 3, 4]);
  });

  it("keeps accounts and keys across a restart", async () => {
    const key = generateApiKey();
    const account = await store.createAccount(email(), "default", key);
    await db.reopen();
    store = new AuthStore(db.database, testCipher);
    expect(await store.findActiveKey(key.hash)).toEqual({ keyId: key.id, accountId: account.id, plan: "default" });
    expect(await store.ensureAccount(account.email, "default")).toEqual(account);
  });

  it("stores keys sealed, not in plaintext, and shows the active one opened", async () => {
    const key = generateApiKey();
    const account = await store.createAccount(email(), "default", key);
    const [row] = await db.database.query<{ key_hash: string; key_ciphertext: string }>(
      "SELECT key_hash, key_ciphertext FROM api_keys WHERE id = $1",
      [key.id],
    );
    expect(row!.key_hash).toBe(key.hash);
    expect(row!.key_ciphertext).not.toContain(key.plaintext);
    expect(await store.findShownKey(account.id)).toMatchObject({ id: key.id, plaintext: key.plaintext });
  });

  it("seals stored keys anew when the encryption key rotates, and still shows each one", async () => {
    const key = generateApiKey();
    const account = await store.createAccount(email(), "default", key);
    const next = randomBytes(32);
    const rotating = new AuthStore(db.database, new KeyCipher(next, [testCipher.key]));
    expect((await rotating.resealKeys()).resealed).toBeGreaterThan(0);
    // Sealed under the new key alone now: a store that has only it shows the key, the old key opens it no more.
    expect((await new AuthStore(db.database, new KeyCipher(next)).findShownKey(account.id))?.plaintext).toBe(
      key.plaintext,
    );
    await expect(store.findShownKey(account.id)).rejects.toThrow();
    expect(await rotating.resealKeys()).toEqual({ resealed: 0, unreadable: 0 });
    // Back to the test cipher for the other tests of this database.
    await new AuthStore(db.database, new KeyCipher(testCipher.key, [next])).resealKeys();
  });

  it("shows no plaintext for a key stored before keys were sealed", async () => {
    const key = generateApiKey();
    const account = await store.createAccount(email(), "default", key);
    await db.database.query("UPDATE api_keys SET key_ciphertext = NULL WHERE id = $1", [key.id]);
    expect(await store.findShownKey(account.id)).toMatchObject({ id: key.id, plaintext: undefined });
  });

  it("finds a session until it expires or is deleted", async () => {
    const account = await store.createAccount(email(), "default", generateApiKey());
    await store.createSession(account.id, "live", new Date(Date.now() + 60_000));
    await store.createSession(account.id, "expired", new Date(Date.now() - 1));
    expect(await store.findSessionAccount("live")).toBe(account.id);
    expect(await store.findSessionAccount("expired")).toBeUndefined();
    // The next log-in clears the account's expired sessions.
    await store.createSession(account.id, "another", new Date(Date.now() + 60_000));
    expect(await db.database.query("SELECT 1 FROM sessions WHERE token_hash = 'expired'")).toEqual([]);
    await store.deleteSession("live");
    expect(await store.findSessionAccount("live")).toBeUndefined();
    expect(await store.findSessionAccount("another")).toBe(account.id);
  });
});

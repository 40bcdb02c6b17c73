import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ApiKey, generateApiKey, parseApiKey } from "./api-key.js";
import { AuthStore } from "./auth-store.js";
import { openTestDatabase, silentLogger, type TestDatabase, testCipher } from "./databases.test-helpers.js";
import { closeDevAccount, DEV_ACCOUNT_EMAIL, DEV_KEY_FILE, seedDevAccount } from "./dev-account.js";
import { RevocationFeed } from "./revocation-feed.js";

describe("seedDevAccount", () => {
  let db: TestDatabase;
  let store: AuthStore;
  let keyFile: string;
  const seed = (fixedKey?: ApiKey) =>
    seedDevAccount({ store, revocations: feed(), dataDir: db.dataDir, fixedKey, logger: silentLogger });
  // No gateway watches here: no lease to wait for.
  const feed = () => new RevocationFeed(store, 0, silentLogger);
  const fileKey = async () => parseApiKey((await readFile(keyFile, "utf8")).trim());
  const devAccountId = async () => (await store.ensureAccount(DEV_ACCOUNT_EMAIL, "default")).id;

  beforeEach(async () => {
    db = await openTestDatabase("postgres");
    store = new AuthStore(db.database, testCipher);
    keyFile = path.join(db.dataDir, DEV_KEY_FILE);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await db.dispose();
  });

  it("generates a key for a new dev account, writes it owner-only, and never logs it", async () => {
    const info = vi.spyOn(silentLogger, "info");
    await seed();
    const key = await fileKey();
    expect(key).toBeDefined();
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(await store.findActiveKey(key!.hash)).toMatchObject({ accountId: await devAccountId() });
    expect(info).toHaveBeenCalledWith(expect.objectContaining({ keyId: key!.id }), "dev API key generated");
    expect(JSON.stringify(info.mock.calls)).not.toContain(key!.plaintext);
  });

  it("keeps the key in the file while it is still valid", async () => {
    await seed();
    const first = await fileKey();
    const info = vi.spyOn(silentLogger, "info");
    await seed();
    expect(await fileKey()).toEqual(first);
    expect(await store.findActiveKey(first!.hash)).toBeDefined();
    expect(info).not.toHaveBeenCalledWith(expect.anything(), "dev API key generated");
  });

  it("replaces the key in the file once it has been rotated away", async () => {
    await seed();
    const first = await fileKey();
    await store.replaceKeys(await devAccountId(), generateApiKey());
    await seed();
    const second = await fileKey();
    expect(second?.plaintext).not.toBe(first?.plaintext);
    expect(await store.findActiveKey(second!.hash)).toMatchObject({ accountId: await devAccountId() });
  });

  it("replaces a file that does not hold a well-formed key", async () => {
    await writeFile(keyFile, "not a key\n");
    await seed();
    expect(await fileKey()).toBeDefined();
  });

  it("makes WINNOW_DEV_API_KEY the dev account's only valid key and records it in the file", async () => {
    await seed();
    const generated = await fileKey();
    const fixed = generateApiKey();
    await seed(fixed);
    expect(await store.findActiveKey(fixed.hash)).toMatchObject({ keyId: fixed.id, accountId: await devAccountId() });
    expect(await store.findActiveKey(generated!.hash)).toBeUndefined();
    expect(await fileKey()).toEqual(fixed);
  });

  it("switched off, revokes the keys an earlier start gave the dev account and removes its file", async () => {
    await seed();
    const key = (await fileKey())!;
    expect(await store.findActiveKey(key.hash)).toBeDefined();
    await closeDevAccount({ store, revocations: feed(), dataDir: db.dataDir, logger: silentLogger });
    expect(await store.findActiveKey(key.hash)).toBeUndefined();
    await expect(stat(keyFile)).rejects.toThrow(/ENOENT/);
    // Nothing to close on a database that never had it.
    await closeDevAccount({ store, revocations: feed(), dataDir: db.dataDir, logger: silentLogger });
  });
});

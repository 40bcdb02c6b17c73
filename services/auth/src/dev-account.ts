import { rm } from "node:fs/promises";
import path from "node:path";
import { type Logger, readSecretFile, writeSecretFile } from "@winnow/platform";
import { type ApiKey, generateApiKey, parseApiKey } from "./api-key.js";
import type { AuthStore } from "./auth-store.js";
import { DEFAULT_PLAN } from "./plans.js";
import type { RevocationFeed } from "./revocation-feed.js";

export const DEV_ACCOUNT_EMAIL = "dev@localhost";
/** The file under the data directory holding the dev key; the launcher prints it. */
export const DEV_KEY_FILE = "dev-api-key";

export interface DevAccountOptions {
  store: AuthStore;
  /** Told of the keys a fixed key or the off switch revokes. */
  revocations: RevocationFeed;
  dataDir: string;
  /** WINNOW_DEV_API_KEY: when set, the dev account's only valid key. */
  fixedKey: ApiKey | undefined;
  logger: Logger;
}

/**
 * Makes sure the dev account exists with a working key recorded in
 * <dataDir>/dev-api-key: the fixed key when configured, else the key already
 * in the file while it is still valid, else a new one (logged once).
 */
export async function seedDevAccount({
  store,
  revocations,
  dataDir,
  fixedKey,
  logger,
}: DevAccountOptions): Promise<void> {
  const account = await store.ensureAccount(DEV_ACCOUNT_EMAIL, DEFAULT_PLAN);
  const file = path.join(dataDir, DEV_KEY_FILE);

  if (!fixedKey) {
    const kept = await readKeyFile(file);
    if (kept && (await store.findActiveKey(kept.hash))?.accountId === account.id) {
      logger.info({ file, keyId: kept.id }, "dev API key kept");
      return;
    }
  }

  const key = fixedKey ?? generateApiKey();
  if ((await store.replaceKeys(account.id, key))! > 0) await revocations.revoked();
  await writeSecretFile(file, `${key.plaintext}\n`);
  if (fixedKey) logger.info({ file, keyId: key.id }, "dev API key set from WINNOW_DEV_API_KEY");
  // The key itself never goes to a log (logs are shipped and kept); `npm start` prints it from the file.
  else logger.info({ file, keyId: key.id }, "dev API key generated");
}

/**
 * With the dev account off (production), no key of it is valid and its key
 * file is gone, also where an earlier start created them.
 */
export async function closeDevAccount({
  store,
  revocations,
  dataDir,
  logger,
}: Omit<DevAccountOptions, "fixedKey">): Promise<void> {
  const revoked = await store.revokeKeysOf(DEV_ACCOUNT_EMAIL);
  if (revoked > 0) await revocations.revoked();
  await rm(path.join(dataDir, DEV_KEY_FILE), { force: true });
  logger.info({ revoked }, "dev account off (WINNOW_DEV_ACCOUNT=false)");
}

async function readKeyFile(file: string): Promise<ApiKey | undefined> {
  const content = await readSecretFile(file);
  return content === undefined ? undefined : parseApiKey(content.trim());
}

import { hkdfSync, randomBytes } from "node:crypto";
import path from "node:path";
import { type Logger, readSecretFile, writeSecretFile } from "@winnow/platform";

/** The file under the data directory holding the generated key, when WINNOW_ENCRYPTION_KEY is not set. */
const WEBHOOK_KEY_FILE = "webhook-key";

/**
 * Each account's webhook signing secret, derived with HKDF-SHA256 from the
 * operator's key and the account id: nothing to store, the same on every
 * gateway that has the same key, and one account's secret tells nothing of another's.
 */
export class WebhookSecrets {
  constructor(private readonly key: Buffer) {}

  forAccount(accountId: string): string {
    const bytes = hkdfSync("sha256", this.key, "winnow webhook secret", accountId, 32);
    return `whsec_${Buffer.from(bytes).toString("base64url")}`;
  }
}

export interface LoadWebhookSecretsOptions {
  /** WINNOW_ENCRYPTION_KEY as configured: the operator's key. */
  configured: string | undefined;
  dataDir: string;
  logger: Logger;
}

/** From the operator's key, else from one generated under the data directory on first start and kept. */
export async function loadWebhookSecrets({
  configured,
  dataDir,
  logger,
}: LoadWebhookSecretsOptions): Promise<WebhookSecrets> {
  if (configured) return new WebhookSecrets(Buffer.from(configured.trim(), "utf8"));
  const file = path.join(dataDir, WEBHOOK_KEY_FILE);
  const kept = await readSecretFile(file);
  if (kept !== undefined) return new WebhookSecrets(Buffer.from(kept.trim(), "utf8"));
  const key = randomBytes(32).toString("base64");
  await writeSecretFile(file, `${key}\n`);
  // As on one machine under npm start; replicas each generating their own would sign with different secrets.
  logger.info(
    { file },
    "generated a key for webhook secrets; set WINNOW_ENCRYPTION_KEY when gateways run as replicas (the same on each)",
  );
  return new WebhookSecrets(Buffer.from(key, "utf8"));
}

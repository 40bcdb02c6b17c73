import type { AuthClient, CallOptions } from "@winnow/platform";
import type { WebhookSecret } from "@winnow/platform/gen/winnow/auth/v1/auth.js";

/** How long the gateway uses an account's secrets (GET /account) before auth is asked again. */
export const SECRETS_TTL_MS = 5_000;
/** Accounts kept at most; the least recently asked go first. */
const MAX_ACCOUNTS = 10_000;

/**
 * Each account's webhook secrets as auth keeps them, asked at most once per `ttlMs` per account, so that GET /account
 * and the dashboard cost auth one read a few seconds, not one each. A rotation through this process is seen at once;
 * one through another within `ttlMs`. The jobs worker, which signs deliveries, keeps none (`ttlMs` 0): every
 * rotation, made through a gateway, signs its next delivery attempt, and a second one ends the replaced secret at once.
 */
export class WebhookSecretCache {
  private readonly entries = new Map<string, { at: number; secrets: Promise<WebhookSecret[]> }>();

  /** `ttlMs` 0: auth is asked every time. */
  constructor(
    private readonly auth: AuthClient,
    private readonly ttlMs: number,
  ) {}

  /** The account's secrets: the current one first, then one in its grace. */
  secrets(accountId: string, options: CallOptions): Promise<WebhookSecret[]> {
    const kept = this.entries.get(accountId);
    if (kept && Date.now() - kept.at < this.ttlMs) return kept.secrets;
    const secrets = this.auth.getWebhookSecrets({ accountId, sessionToken: "" }, options).then((r) => r.secrets);
    if (this.ttlMs > 0) this.keep(accountId, secrets);
    return secrets;
  }

  /**
   * Rotates the account's secret and keeps what auth answers. With a session token auth rotates the session's
   * account (the dashboard), which must be `accountId`.
   */
  async rotate(accountId: string, options: CallOptions, sessionToken = ""): Promise<WebhookSecret[]> {
    const { secrets } = await this.auth.rotateWebhookSecret(
      sessionToken ? { accountId: "", sessionToken } : { accountId, sessionToken: "" },
      options,
    );
    this.keep(accountId, Promise.resolve(secrets));
    return secrets;
  }

  private keep(accountId: string, secrets: Promise<WebhookSecret[]>): void {
    this.entries.delete(accountId);
    this.entries.set(accountId, { at: Date.now(), secrets });
    // A failed read is not kept: the next caller asks again.
    secrets.catch(() => {
      if (this.entries.get(accountId)?.secrets === secrets) this.entries.delete(accountId);
    });
    if (this.entries.size > MAX_ACCOUNTS) this.entries.delete(this.entries.keys().next().value as string);
  }
}

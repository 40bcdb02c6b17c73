import type { WebhookSecret } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { type RequestHandler, Router } from "express";
import { hop } from "../http/request-context.js";
import type { WebhookSecretCache } from "./webhook-secret-cache.js";

/** An account's webhook secret as GET /account and the rotation answer it. */
export function describeWebhookSecrets(secrets: WebhookSecret[]): {
  webhook_secret: string;
  webhook_secret_previous_expires_at?: string;
} {
  const previous = secrets.find((secret) => secret.expiresAt);
  return {
    webhook_secret: secrets[0]!.secret,
    ...(previous && { webhook_secret_previous_expires_at: previous.expiresAt!.toISOString() }),
  };
}

/**
 * POST /account/webhook-secret/rotate: a new random secret for the key's account; the one it replaces still
 * signs deliveries (beside the new one) until its grace ends. Rotating again ends the replaced one at once.
 */
export function webhookSecretRouter(secrets: WebhookSecretCache, guards: RequestHandler[]): Router {
  const router = Router();
  router.post("/rotate", ...guards, async (_req, res) => {
    res.json(describeWebhookSecrets(await secrets.rotate(res.locals.accountId!, hop(res))));
  });
  return router;
}

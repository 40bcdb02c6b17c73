import { unary, WinnowError, type Logger } from "@winnow/platform";
import {
  InvalidKeyReason,
  type AuthServiceServer,
  type ValidateKeyResponse,
} from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { z } from "zod";
import { generateApiKey, parseApiKey } from "./api-key.js";
import type { AuthStore } from "./auth-store.js";
import { DEFAULT_PLAN, type PlanLookup } from "./plans.js";

export interface AuthServiceDependencies {
  store: AuthStore;
  plans: PlanLookup;
  logger: Logger;
}

// Emails are compared case-insensitively: the lower-cased form is what is stored.
const emailSchema = z
  .string()
  .trim()
  .min(1, "is required")
  .max(254, "must be at most 254 characters")
  .pipe(z.email("must be an email address such as name@example.com"))
  .transform((email) => email.toLowerCase());

const accountIdSchema = z.string().min(1, "is required").pipe(z.uuid("must be an account id (a UUID)"));

/** The winnow.auth.v1.AuthService implementation over a store. */
export function createAuthService({ store, plans, logger }: AuthServiceDependencies): AuthServiceServer {
  return {
    validateKey: unary(logger, async (request): Promise<ValidateKeyResponse> => {
      const key = parseApiKey(request.apiKey);
      if (!key) return invalid(InvalidKeyReason.INVALID_KEY_REASON_MALFORMED);
      const active = await store.findActiveKey(key.hash);
      if (!active) return invalid(InvalidKeyReason.INVALID_KEY_REASON_UNKNOWN);
      return {
        valid: true,
        reason: InvalidKeyReason.INVALID_KEY_REASON_UNSPECIFIED,
        accountId: active.accountId,
        keyId: active.keyId,
        limits: plans(active.plan),
      };
    }),

    createAccount: unary(logger, async (request) => {
      const email = validField("email", emailSchema, request.email);
      const key = generateApiKey();
      const account = await store.createAccount(email, DEFAULT_PLAN, key);
      logger.info({ accountId: account.id, keyId: key.id }, "account created");
      return {
        account: { id: account.id, email: account.email, createdAt: account.createdAt, limits: plans(account.plan) },
        keyId: key.id,
        apiKey: key.plaintext,
      };
    }),

    rotateKey: unary(logger, async (request) => {
      const accountId = validField("account_id", accountIdSchema, request.accountId);
      const key = generateApiKey();
      if (!(await store.replaceKeys(accountId, key))) {
        throw new WinnowError("not-found", `no account with id ${accountId}`);
      }
      logger.info({ accountId, keyId: key.id }, "API key rotated");
      return { keyId: key.id, apiKey: key.plaintext };
    }),
  };
}

function invalid(reason: InvalidKeyReason): ValidateKeyResponse {
  return { valid: false, reason, accountId: "", keyId: "", limits: undefined };
}

/** The parsed field, or an "invalid-request" naming it. */
function validField<T>(name: string, schema: z.ZodType<T, string>, value: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const violations = result.error.issues.map((issue) => ({ path: `/${name}`, description: `${name} ${issue.message}` }));
  throw new WinnowError("invalid-request", violations.map((v) => v.description).join("; "), { violations });
}

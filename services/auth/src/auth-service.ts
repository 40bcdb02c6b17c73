import { createHash, randomBytes } from "node:crypto";
import { type CallerRole, type Logger, type ServiceBinding, unary, WinnowError } from "@winnow/platform";
import {
  type Account,
  type AuthServiceServer,
  AuthServiceService,
  InvalidKeyReason,
  type ValidateKeyResponse,
} from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { z } from "zod";
import { generateApiKey, parseApiKey } from "./api-key.js";
import type { AccountRecord, AuthStore } from "./auth-store.js";
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  passwordWeakness,
  verifyPassword,
} from "./passwords.js";
import { DEFAULT_PLAN, type PlanLookup } from "./plans.js";
import type { RevocationFeed } from "./revocation-feed.js";

export interface AuthServiceDependencies {
  store: AuthStore;
  /** Tells gateways of revoked keys; a rotation returns once no gateway can accept the old key. */
  revocations: RevocationFeed;
  plans: PlanLookup;
  logger: Logger;
  /** How long a dashboard session lasts after log-in. */
  sessionTtlMs: number;
}

const SESSION_TOKEN_BYTES = 32;
const DEFAULT_USAGE_DAYS = 30;
const NO_SESSION = "The session is not valid or has expired; log in again.";

// Emails are compared case-insensitively: the lower-cased form is what is stored.
const emailSchema = z
  .string()
  .trim()
  .min(1, "is required")
  .max(254, "must be at most 254 characters")
  .pipe(z.email("must be an email address such as name@example.com"))
  .transform((email) => email.toLowerCase());

const accountIdSchema = z.string().min(1, "is required").pipe(z.uuid("must be an account id (a UUID)"));

/** A new password for `email`: long enough, and not one that is easy to guess. */
const passwordSchema = (email: string) =>
  z
    .string()
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`)
    // Scored once it is of a length allowed (the length alone says what to do otherwise).
    .pipe(
      z.string().superRefine((password, context) => {
        const weakness = passwordWeakness(password, email);
        if (weakness) context.addIssue({ code: "custom", message: weakness });
      }),
    );

const keyIdSchema = z.string().regex(/^[0-9A-Za-z]{11}$/, "must be a key id (11 letters and digits)");

const daySchema = z.iso.date("must be a day as YYYY-MM-DD");

const GATEWAY_OR_ADMIN: readonly CallerRole[] = ["gateway", "admin"];
const ADMIN: readonly CallerRole[] = ["admin"];

/**
 * Who may call each RPC: the gateway what the dashboard and scrapes use, the operator CLI
 * everything. Listing every account and rotating any account's key by id are the operator's
 * alone, so a leaked gateway token cannot enumerate accounts or take over their keys.
 */
const CALLERS: Record<keyof AuthServiceServer, readonly CallerRole[]> = {
  validateKey: GATEWAY_OR_ADMIN,
  getKey: GATEWAY_OR_ADMIN,
  createAccount: GATEWAY_OR_ADMIN,
  rotateKey: ADMIN,
  logIn: GATEWAY_OR_ADMIN,
  logOut: GATEWAY_OR_ADMIN,
  getAccount: GATEWAY_OR_ADMIN,
  rotateSessionKey: GATEWAY_OR_ADMIN,
  recordUsage: GATEWAY_OR_ADMIN,
  recordUsageBatch: GATEWAY_OR_ADMIN,
  watchRevocations: GATEWAY_OR_ADMIN,
  getUsage: GATEWAY_OR_ADMIN,
  listAccounts: ADMIN,
};

/** The service as a gRPC server registers it. */
export function authServiceBinding(dependencies: AuthServiceDependencies): ServiceBinding {
  return {
    name: "winnow.auth.v1.AuthService",
    definition: AuthServiceService,
    implementation: createAuthService(dependencies),
    protoFile: "winnow/auth/v1/auth.proto",
    callers: CALLERS,
  };
}

/** The winnow.auth.v1.AuthService implementation over a store. */
function createAuthService({
  store,
  revocations,
  plans,
  logger,
  sessionTtlMs,
}: AuthServiceDependencies): AuthServiceServer {
  const toAccount = (account: AccountRecord): Account => ({
    id: account.id,
    email: account.email,
    createdAt: account.createdAt,
    limits: plans(account.plan),
  });

  /** The account of a live session, or "unauthorized". */
  const sessionAccount = async (token: string): Promise<string> => {
    const accountId = token ? await store.findSessionAccount(hashToken(token)) : undefined;
    if (!accountId) throw new WinnowError("unauthorized", NO_SESSION);
    return accountId;
  };

  const rotate = async (accountId: string) => {
    const key = generateApiKey();
    const revoked = await store.replaceKeys(accountId, key);
    if (revoked === undefined) throw new WinnowError("not-found", `no account with id ${accountId}`);
    if (revoked > 0) await revocations.revoked();
    logger.info({ accountId, keyId: key.id }, "API key rotated");
    return { keyId: key.id, apiKey: key.plaintext };
  };

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

    getKey: unary(logger, async (request) => {
      const active = await store.findActiveKeyById(validField("key_id", keyIdSchema, request.keyId));
      if (!active) return { valid: false, accountId: "" };
      return { valid: true, accountId: active.accountId, limits: plans(active.plan) };
    }),

    createAccount: unary(logger, async (request) => {
      const email = validField("email", emailSchema, request.email);
      const password = request.password ? validField("password", passwordSchema(email), request.password) : undefined;
      const key = generateApiKey();
      const account = await store.createAccount(email, DEFAULT_PLAN, key, password && (await hashPassword(password)));
      logger.info({ accountId: account.id, keyId: key.id }, "account created");
      return { account: toAccount(account), keyId: key.id, apiKey: key.plaintext };
    }),

    rotateKey: unary(logger, async (request) => rotate(validField("account_id", accountIdSchema, request.accountId))),

    rotateSessionKey: unary(logger, async (request) => rotate(await sessionAccount(request.sessionToken))),

    logIn: unary(logger, async (request) => {
      const email = emailSchema.safeParse(request.email);
      const login = email.success ? await store.findLogin(email.data) : undefined;
      // Always one argon2 verification, so an unknown email answers as slowly as a wrong password.
      const matches = await verifyPassword(login?.passwordHash, request.password.slice(0, MAX_PASSWORD_LENGTH));
      if (!login || !matches) throw new WinnowError("unauthorized", "The email or password is incorrect.");
      const token = randomBytes(SESSION_TOKEN_BYTES).toString("base64url");
      const expiresAt = new Date(Date.now() + sessionTtlMs);
      await store.createSession(login.accountId, hashToken(token), expiresAt);
      logger.info({ accountId: login.accountId }, "logged in");
      return { session: { token, expiresAt } };
    }),

    logOut: unary(logger, async (request) => {
      if (request.sessionToken) await store.deleteSession(hashToken(request.sessionToken));
      return {};
    }),

    getAccount: unary(logger, async (request) => {
      const accountId = await sessionAccount(request.sessionToken);
      const account = await store.findAccount(accountId);
      if (!account) throw new WinnowError("unauthorized", NO_SESSION);
      const key = await store.findShownKey(accountId);
      return {
        account: toAccount(account),
        keyId: key?.id ?? "",
        apiKey: key?.plaintext ?? "",
        keyCreatedAt: key?.createdAt,
      };
    }),

    recordUsage: unary(logger, async (request) => {
      const keyId = validField("key_id", keyIdSchema, request.keyId);
      const unknown = await store.recordUsage([
        { keyId, scrapes: request.scrapes, tokensIn: request.tokensIn, tokensOut: request.tokensOut },
      ]);
      if (unknown.length > 0) throw new WinnowError("not-found", `no key with id ${keyId}`);
      return {};
    }),

    recordUsageBatch: unary(logger, async (request) => {
      const entries = request.usage.map((entry, i) => ({
        keyId: validField(`usage/${i}/key_id`, keyIdSchema, entry.keyId),
        day: validField(`usage/${i}/day`, daySchema, entry.day),
        scrapes: entry.scrapes,
        tokensIn: entry.tokensIn,
        tokensOut: entry.tokensOut,
        byPath: entry.byPath,
      }));
      const unknownKeyIds = await store.recordUsage(entries);
      if (unknownKeyIds.length > 0) logger.warn({ unknownKeyIds }, "usage for keys that do not exist was dropped");
      return { unknownKeyIds };
    }),

    watchRevocations: revocations.watch,

    getUsage: unary(logger, async (request) => {
      if (Boolean(request.sessionToken) === Boolean(request.accountId)) {
        throw new WinnowError("invalid-request", "give exactly one of session_token and account_id");
      }
      const accountId = request.sessionToken
        ? await sessionAccount(request.sessionToken)
        : validField("account_id", accountIdSchema, request.accountId);
      const days = request.days || DEFAULT_USAGE_DAYS;
      if (days > 366) throw new WinnowError("invalid-request", "days must be between 1 and 366");
      return { days: await store.usage(accountId, days) };
    }),

    listAccounts: unary(logger, async () => ({
      accounts: (await store.listAccounts()).map((summary) => ({
        account: toAccount(summary.account),
        keyId: summary.keyId ?? "",
        ...summary.usage,
      })),
    })),
  };
}

/** Sessions are stored by this hash, so a database leak gives no usable session. */
function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function invalid(reason: InvalidKeyReason): ValidateKeyResponse {
  return { valid: false, reason, accountId: "", keyId: "", limits: undefined };
}

/** The parsed field, or an "invalid-request" naming it. */
function validField<T>(name: string, schema: z.ZodType<T, string>, value: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const violations = result.error.issues.map((issue) => ({
    path: `/${name}`,
    description: `${name} ${issue.message}`,
  }));
  throw new WinnowError("invalid-request", violations.map((v) => v.description).join("; "), { violations });
}

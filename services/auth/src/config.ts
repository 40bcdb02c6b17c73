import { env, grpcServiceConfig } from "@winnow/platform";
import { z } from "zod";
import { generateApiKey, parseApiKey } from "./api-key.js";
import { decodeEncryptionKey } from "./key-cipher.js";

export const authConfigShape = {
  ...grpcServiceConfig({ grpcPort: 50051, metricsPort: 9465 }),
  /** The gateway's credential: what the dashboard and scrapes need, no account administration. */
  WINNOW_GATEWAY_TOKEN: env.callerToken(),
  /** The operator CLI's credential: every RPC, listing accounts and rotating any account's key included. */
  WINNOW_ADMIN_TOKEN: env.callerToken(),
  /** Where the embedded database, the dev key file and the generated encryption key live. */
  WINNOW_DATA_DIR: z.string().min(1).default(".data"),
  /** A Postgres server to use instead of the embedded PGlite database. */
  DATABASE_URL: env.postgresUrl().optional(),
  /**
   * AES-256-GCM key for API keys at rest; without it one is generated under WINNOW_DATA_DIR. During a rotation,
   * "new,old": values sealed under the old key are sealed anew under the new one at start.
   */
  WINNOW_ENCRYPTION_KEY: z
    .string()
    .transform((value, ctx) => {
      const keys = value.split(",").map(decodeEncryptionKey);
      if (keys.every((key) => key !== undefined)) return keys;
      ctx.addIssue({
        code: "custom",
        message:
          "must be 32 bytes as base64 or as 64 hex digits (for example: openssl rand -base64 32); during a rotation, the new key and the old one separated by a comma",
      });
      return z.NEVER;
    })
    .optional(),
  SESSION_TTL_HOURS: env.positiveInt(12, 24 * 90),
  PLAN_REQUESTS_PER_MINUTE: env.positiveInt(60, 2 ** 32 - 1),
  PLAN_MAX_CONCURRENT_SCRAPES: env.positiveInt(4, 2 ** 32 - 1),
  /**
   * How long a gateway may trust its cache of validated keys after auth last
   * proved it current; every revocation waits this long before it returns. 0: gateways do not cache.
   */
  KEY_CACHE_LEASE_MS: env.nonNegativeInt(1_000, 60_000),
  /** Whether the dev account exists; off in production, which also revokes any key it had. */
  WINNOW_DEV_ACCOUNT: env.boolean(true),
  /** A fixed key for the dev account, instead of the generated one kept under WINNOW_DATA_DIR. */
  WINNOW_DEV_API_KEY: z
    .string()
    .transform((value, ctx) => {
      const key = parseApiKey(value.trim());
      if (key) return key;
      ctx.addIssue({
        code: "custom",
        message:
          "must be a well-formed Winnow API key (wnw_<key id>_<secret><checksum>, checksum included); " +
          `unset it to have one generated, or use a fresh one such as ${generateApiKey().plaintext}`,
      });
      return z.NEVER;
    })
    .optional(),
};

export type AuthConfig = z.infer<z.ZodObject<typeof authConfigShape>>;

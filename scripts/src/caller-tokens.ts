/**
 * The caller tokens of internal gRPC, one per role, and the renderer's page signing key, for a
 * stack on one machine: each taken from its variable (WINNOW_GATEWAY_TOKEN, ...,
 * WINNOW_PAGE_SIGNING_KEY) where set, else generated on first start and kept under the data
 * directory (gateway-token, admin-token, service-token, page-signing-key; mode 0600), as auth
 * keeps its encryption key there.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import {
  type CallerRole,
  PAGE_SIGNING_KEY_VARIABLE,
  readSecretFile,
  TOKEN_VARIABLES,
  writeSecretFile,
} from "@winnow/platform";

export type CallerTokenSet = Record<CallerRole, string>;

const ROLES = Object.keys(TOKEN_VARIABLES) as CallerRole[];

/** The file under the data directory that keeps a role's generated token. */
export const tokenFile = (dataDir: string, role: CallerRole) => path.join(dataDir, `${role}-token`);

export async function loadOrCreateCallerTokens(dataDir: string, env: NodeJS.ProcessEnv): Promise<CallerTokenSet> {
  const tokens = await Promise.all(
    ROLES.map(async (role) => env[TOKEN_VARIABLES[role]] || (await keptOrNewToken(tokenFile(dataDir, role)))),
  );
  return Object.fromEntries(ROLES.map((role, i) => [role, tokens[i]!])) as CallerTokenSet;
}

/** The renderer's and the extractor's page signing key, as its variable. */
export async function loadOrCreatePageSigningKey(
  dataDir: string,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, string>> {
  const key = env[PAGE_SIGNING_KEY_VARIABLE] || (await keptOrNewToken(path.join(dataDir, "page-signing-key")));
  return { [PAGE_SIGNING_KEY_VARIABLE]: key };
}

/** These roles' tokens as the environment variables services read. */
export function tokenEnv(tokens: Partial<CallerTokenSet>, roles: CallerRole[] = ROLES): Record<string, string> {
  return Object.fromEntries(roles.flatMap((role) => (tokens[role] ? [[TOKEN_VARIABLES[role], tokens[role]]] : [])));
}

async function keptOrNewToken(file: string): Promise<string> {
  const kept = (await readSecretFile(file))?.trim();
  if (kept) return kept;
  const token = randomBytes(32).toString("base64url");
  await writeSecretFile(file, `${token}\n`);
  return token;
}

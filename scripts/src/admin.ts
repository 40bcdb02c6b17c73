/**
 * `npm run admin -- <command>`: operator commands against the auth service (admin-commands.ts) and the extractor's
 * template store (admin-templates.ts).
 */
import path from "node:path";
import { configShape as extractorConfig } from "@winnow/extractor";
import { createClient, env, loadConfigOrExit, promiseClient, readSecretFile, WinnowError } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { runAdmin, USAGE, UsageError } from "./admin-commands.js";
import { runTemplatesAdmin } from "./admin-templates.js";
import { tokenFile } from "./caller-tokens.js";
import { REPO_ROOT } from "./stack.js";

const config = loadConfigOrExit({
  AUTH_ADDR: env.grpcTarget("127.0.0.1:50051"),
  /** Auth's admin token; unset: the one `npm start` keeps under WINNOW_DATA_DIR. */
  WINNOW_ADMIN_TOKEN: env.callerToken().optional(),
  WINNOW_DATA_DIR: extractorConfig.WINNOW_DATA_DIR,
});
const argv = process.argv.slice(2);
// Templates are read from the extractor's database directly; only auth's commands need its admin token.
const auth =
  argv[0] === "templates"
    ? undefined
    : promiseClient(createClient(AuthServiceClient, config.AUTH_ADDR, await adminToken()));
try {
  if (auth) await runAdmin(argv, auth, (line) => console.log(line));
  else await runTemplatesAdmin(argv.slice(1), (line) => console.log(line));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof WinnowError) {
    console.error(`error (${error.type}): ${error.message}`);
    process.exitCode = 1;
  } else if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    throw error;
  }
} finally {
  auth?.grpc.close();
}

/** WINNOW_ADMIN_TOKEN, else the one `npm start` generated and keeps in the data directory. */
async function adminToken(): Promise<string> {
  if (config.WINNOW_ADMIN_TOKEN) return config.WINNOW_ADMIN_TOKEN.current;
  const file = tokenFile(path.resolve(REPO_ROOT, config.WINNOW_DATA_DIR), "admin");
  const kept = (await readSecretFile(file))?.trim();
  if (kept) return kept;
  console.error(`WINNOW_ADMIN_TOKEN is unset and ${file} does not exist: set it to the auth service's admin token`);
  process.exit(1);
}

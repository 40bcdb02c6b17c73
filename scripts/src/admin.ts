/**
 * `npm run admin -- <command>`: operator commands against the auth service (admin-commands.ts) and the extractor's
 * template store (admin-templates.ts).
 */
import { createClient, env, loadConfigOrExit, promiseClient, WinnowError } from "@winnow/platform";
import { AuthServiceClient } from "@winnow/platform/gen/winnow/auth/v1/auth.js";
import { runAdmin, USAGE, UsageError } from "./admin-commands.js";
import { runTemplatesAdmin } from "./admin-templates.js";

const config = loadConfigOrExit({ AUTH_ADDR: env.grpcTarget("127.0.0.1:50051") });
const auth = promiseClient(createClient(AuthServiceClient, config.AUTH_ADDR));
try {
  const argv = process.argv.slice(2);
  if (argv[0] === "templates") await runTemplatesAdmin(argv.slice(1), (line) => console.log(line));
  else await runAdmin(argv, auth, (line) => console.log(line));
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
  auth.grpc.close();
}

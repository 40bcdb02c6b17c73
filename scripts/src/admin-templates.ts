/**
 * `npm run admin -- templates list|forget <host>`: the extractor's learned
 * templates of a host, of every account (or of one, or the shared ones, to
 * forget), read from its store directly (the Postgres of DATABASE_URL, or
 * the PGlite database under WINNOW_DATA_DIR, which only one process may
 * open: stop the extractor first).
 */
import { parseArgs } from "node:util";

import {
  configShape as extractorConfig,
  openTemplateDatabase,
  SHARED_TENANT,
  SqlTemplateStore,
} from "@winnow/extractor";
import { createLogger, loadConfig } from "@winnow/platform";
import { UsageError } from "./admin-commands.js";

/** The extractor's own settings for its database, read as it reads them. */
const configShape = {
  WINNOW_DATA_DIR: extractorConfig.WINNOW_DATA_DIR,
  DATABASE_URL: extractorConfig.DATABASE_URL,
  LOG_LEVEL: extractorConfig.LOG_LEVEL,
};

export async function runTemplatesAdmin(argv: string[], print: (line: string) => void): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { tenant: { type: "string" }, shared: { type: "boolean" } },
  });
  const [action, host, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(" ")}`);
  if (action !== "list" && action !== "forget")
    throw new UsageError(`templates needs list or forget, not ${JSON.stringify(action ?? "")}`);
  if (!host) throw new UsageError(`templates ${action} needs a host`);
  if (values.tenant !== undefined && values.shared) throw new UsageError("give --tenant or --shared, not both");
  if (action === "list" && (values.tenant !== undefined || values.shared))
    throw new UsageError("templates list shows every account's templates; --tenant and --shared are for forget");
  const tenant = values.shared ? SHARED_TENANT : values.tenant;
  const config = loadConfig(configShape);
  const open = () =>
    openTemplateDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.WINNOW_DATA_DIR,
      logger: createLogger("admin", config.LOG_LEVEL),
    });
  // Bounds apply when learning records; listing and forgetting change nothing else.
  const store = new SqlTemplateStore(open, {
    templatesPerHost: Number.MAX_SAFE_INTEGER,
    templates: Number.MAX_SAFE_INTEGER,
  });
  try {
    const name = host.toLowerCase();
    if (action === "forget") {
      const whose = tenant === undefined ? "" : ` (${tenantName(tenant)})`;
      print(`forgot ${await store.forget(name, tenant)} templates of ${name}${whose}`);
      return;
    }
    const templates = await store.list(name);
    if (templates.length === 0) print(`no templates learned for ${name}`);
    for (const t of templates)
      print(
        `${t.signature}  ${tenantName(t.tenant)}  pages ${t.pages}  locators ${t.locators}  last used ${t.lastUsed.toISOString()}  trusted: ${t.trustedFields.join(", ") || "none"}`,
      );
  } finally {
    await store.close();
  }
}

/** How an operator reads a template's tenant: an account id, or "shared". */
function tenantName(tenant: string): string {
  return tenant === SHARED_TENANT ? "shared" : `account ${tenant}`;
}

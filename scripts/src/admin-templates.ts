/**
 * `npm run admin -- templates list|forget <host>`: the extractor's learned
 * templates of a host, read from its store directly (the Postgres of
 * DATABASE_URL, or the PGlite database under WINNOW_DATA_DIR, which only
 * one process may open: stop the extractor first).
 */

import { configShape as extractorConfig, openTemplateDatabase, SqlTemplateStore } from "@winnow/extractor";
import { createLogger, loadConfig } from "@winnow/platform";
import { UsageError } from "./admin-commands.js";

/** The extractor's own settings for its database, read as it reads them. */
const configShape = {
  WINNOW_DATA_DIR: extractorConfig.WINNOW_DATA_DIR,
  DATABASE_URL: extractorConfig.DATABASE_URL,
  LOG_LEVEL: extractorConfig.LOG_LEVEL,
};

export async function runTemplatesAdmin(argv: string[], print: (line: string) => void): Promise<void> {
  const [action, host, ...rest] = argv;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(" ")}`);
  if (action !== "list" && action !== "forget")
    throw new UsageError(`templates needs list or forget, not ${JSON.stringify(action ?? "")}`);
  if (!host) throw new UsageError(`templates ${action} needs a host`);
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
      print(`forgot ${await store.forget(name)} templates of ${name}`);
      return;
    }
    const templates = await store.list(name);
    if (templates.length === 0) print(`no templates learned for ${name}`);
    for (const t of templates)
      print(
        `${t.signature}  pages ${t.pages}  locators ${t.locators}  last used ${t.lastUsed.toISOString()}  trusted: ${t.trustedFields.join(", ") || "none"}`,
      );
  } finally {
    await store.close();
  }
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { openTemplateDatabase, SHARED_TENANT, SqlTemplateStore } from "@winnow/extractor";
import { createLogger } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import { afterEach, expect, it } from "vitest";
import { UsageError } from "./admin-commands.js";
import { runTemplatesAdmin } from "./admin-templates.js";

const saved = { WINNOW_DATA_DIR: process.env.WINNOW_DATA_DIR, DATABASE_URL: process.env.DATABASE_URL };
afterEach(() => Object.assign(process.env, saved));

it("lists and forgets a host's templates, of every account or of one, in the extractor's PGlite database", async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-admin-templates-"));
  await seedPgliteDirectory(path.join(dataDir, "extractor-db"));
  try {
    const store = new SqlTemplateStore(
      () => openTemplateDatabase({ databaseUrl: undefined, dataDir, logger: createLogger("test", "silent") }),
      { templatesPerHost: 5, templates: 50 },
    );
    const locator = { path: "h1.title", index: 0 };
    for (const tenant of ["acct-a", SHARED_TENANT, "acct-b"])
      for (let page = 0; page < 2; page += 1)
        await store.record(
          { tenant, host: "shop.example", signature: "abc123" },
          ["p1"],
          [{ field: "title:string", locator, agree: 1, disagree: 0 }],
        );
    await store.close();

    process.env.WINNOW_DATA_DIR = dataDir;
    delete process.env.DATABASE_URL;
    const lines: string[] = [];
    await runTemplatesAdmin(["list", "Shop.Example"], (line) => lines.push(line));
    const line = (whose: string) =>
      new RegExp(`^abc123 {2}${whose} {2}pages 2 {2}locators 1 {2}last used \\S+ {2}trusted: title:string$`);
    expect(lines).toEqual([
      expect.stringMatching(line("shared")),
      expect.stringMatching(line("account acct-a")),
      expect.stringMatching(line("account acct-b")),
    ]);
    lines.length = 0;
    await runTemplatesAdmin(["forget", "shop.example", "--tenant", "acct-b"], (line) => lines.push(line));
    await runTemplatesAdmin(["forget", "shop.example", "--shared"], (line) => lines.push(line));
    await runTemplatesAdmin(["list", "shop.example"], (line) => lines.push(line));
    expect(lines).toEqual([
      "forgot 1 templates of shop.example (account acct-b)",
      "forgot 1 templates of shop.example (shared)",
      expect.stringMatching(line("account acct-a")),
    ]);
    lines.length = 0;
    await runTemplatesAdmin(["forget", "shop.example"], (line) => lines.push(line));
    await runTemplatesAdmin(["list", "shop.example"], (line) => lines.push(line));
    expect(lines).toEqual(["forgot 1 templates of shop.example", "no templates learned for shop.example"]);
    await expect(runTemplatesAdmin(["drop", "shop.example"], () => {})).rejects.toBeInstanceOf(UsageError);
    await expect(runTemplatesAdmin(["list"], () => {})).rejects.toBeInstanceOf(UsageError);
    await expect(
      runTemplatesAdmin(["forget", "shop.example", "--tenant", "acct-a", "--shared"], () => {}),
    ).rejects.toBeInstanceOf(UsageError);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

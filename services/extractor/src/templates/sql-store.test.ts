import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger, parseSchema } from "@winnow/platform";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import { migrate, openPglite, openPostgres, type SqlDatabase } from "@winnow/platform/sql";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { loadPage } from "../page/page.js";
import { PageIndex } from "../page/page-index.js";
import { TemplateLearner } from "./learner.js";
import { pageLayout, SHARED_TENANT } from "./signature.js";
import { MIGRATIONS_TABLE, openTemplateDatabase, SqlTemplateStore, TEMPLATE_MIGRATIONS } from "./sql-store.js";
import { MemoryTemplateStore, type TemplateStore } from "./store.js";

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const logger = createLogger("test", "silent");
const BOUNDS = { templatesPerHost: 2, templates: 3 };
const TENANT = "acct-a";
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

/** A fresh database on a backend, not yet migrated. */
async function openDatabase(backend: "pglite" | "postgres"): Promise<SqlDatabase> {
  if (backend === "pglite") {
    const dataDir = await mkdtemp(path.join(tmpdir(), "winnow-templates-"));
    await seedPgliteDirectory(path.join(dataDir, "extractor-db"));
    const db = await openPglite(path.join(dataDir, "extractor-db"));
    cleanups.push(
      () => rm(dataDir, { recursive: true, force: true }),
      () => db.close(),
    );
    return db;
  }
  const schema = `templates_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const db = openPostgres(url.toString(), logger, "the template database");
  cleanups.push(
    () => adminQuery(`DROP SCHEMA ${schema} CASCADE`),
    () => db.close(),
  );
  return db;
}

/** A fresh store on each backend; the database too, for tests that reach under the store. */
async function openStore(
  backend: "memory" | "pglite" | "postgres",
): Promise<{ store: TemplateStore; db?: SqlDatabase }> {
  if (backend === "memory") return { store: new MemoryTemplateStore(BOUNDS) };
  const db = await openDatabase(backend);
  await migrate(db, MIGRATIONS_TABLE, TEMPLATE_MIGRATIONS);
  return { store: new SqlTemplateStore(async () => db, BOUNDS), db };
}

const TREE = parseSchema({ title: "string", price_usd: "number" });
const page = (title: string, price: string) =>
  `<html><body><div id="top"><a href="/">Shop</a></div><div class="main"><h1 class="title">${title}</h1><span class="price">${price}</span></div></body></html>`;

let pageNumber = 0;
async function teach(
  learner: TemplateLearner,
  html: string,
  host: string,
  values: Record<string, unknown>,
  tenant = TENANT,
) {
  pageNumber += 1;
  const loaded = loadPage(html, `https://${host}/p/${pageNumber}`);
  const layout = pageLayout(loaded.$, loaded.url, tenant)!;
  const key = (await learner.templateFor(layout))!;
  const answers = await learner.answer(key, TREE, new PageIndex(loaded.$, loaded.baseUrl), true);
  await learner.learn(key, layout, TREE, new PageIndex(loaded.$, loaded.baseUrl), values, loaded.url!.href);
  return answers;
}

describe.each(["memory", "pglite", "postgres"] as const)("template store on %s", (backend) => {
  it("adds counts up, lists, bounds and forgets a host's templates", async () => {
    const { store } = await openStore(backend);
    const learner = new TemplateLearner(store, logger);
    await teach(learner, page("One", "$1.00"), "shop.example", { title: "One", price_usd: 1 });
    await teach(learner, page("Two", "$2.00"), "shop.example", { title: "Two", price_usd: 2 });
    const third = await teach(learner, page("Three", "$3.50"), "shop.example", {});
    expect(Object.fromEntries([...third].map(([name, answer]) => [name, answer.value]))).toEqual({
      title: "Three",
      price_usd: 3.5,
    });
    // The third page taught nothing new: it is not written.
    const [summary] = await store.list("shop.example");
    expect(summary).toMatchObject({ pages: 2, trustedFields: ["price_usd:number", "title:string"] });
    expect(await store.list("other.example")).toEqual([]);

    for (const [i, host] of ["a.example", "a.example", "a.example"].entries())
      await store.record({ tenant: TENANT, host, signature: `s${i}` }, [`p${i}`], []);
    expect((await store.templates({ tenant: TENANT, host: "a.example" })).map((t) => t.signature).sort()).toEqual([
      "s1",
      "s2",
    ]);
    // Three templates in all: a fourth pushes out shop.example's, the least recently used.
    await store.record({ tenant: TENANT, host: "b.example", signature: "s3" }, ["p3"], []);
    expect(await store.templates({ tenant: TENANT, host: "shop.example" })).toEqual([]);
    expect(await store.forget("a.example")).toBe(2);
    expect(await store.templates({ tenant: TENANT, host: "a.example" })).toEqual([]);
  });
});

describe.each(["memory", "pglite", "postgres"] as const)("templates per account on %s", (backend) => {
  it("answers an account's pages only from what its own pages taught; forgets one account's templates", async () => {
    const { store } = await openStore(backend);
    const learner = new TemplateLearner(store, logger);
    await teach(learner, page("One", "$1.00"), "shop.example", { title: "One", price_usd: 1 });
    await teach(learner, page("Two", "$2.00"), "shop.example", { title: "Two", price_usd: 2 });
    expect((await teach(learner, page("Three", "$3.50"), "shop.example", {}, "acct-b")).size).toBe(0);
    expect((await teach(learner, page("Four", "$4.50"), "shop.example", {})).get("title")?.value).toBe("Four");
    // acct-b's page above taught nothing (no values): its template was not written.
    await teach(learner, page("Five", "$5.00"), "shop.example", { title: "Five" }, "acct-b");
    expect((await store.list("shop.example")).map((t) => [t.tenant, t.pages]).sort()).toEqual([
      ["acct-a", 2],
      ["acct-b", 1],
    ]);
    expect(await store.forget("shop.example", "acct-b")).toBe(1);
    expect((await store.list("shop.example")).map((t) => t.tenant)).toEqual([TENANT]);
  });
});

describe.each(["pglite", "postgres"] as const)("template database on %s", (backend) => {
  it("moves templates learned before tenants to the shared templates", async () => {
    const db = await openDatabase(backend);
    await migrate(db, MIGRATIONS_TABLE, TEMPLATE_MIGRATIONS.slice(0, 1));
    await db.query(
      "INSERT INTO extractor_templates (host, signature, paths, pages) VALUES ('shop.example', 'old', ARRAY['p1'], 3)",
    );
    await migrate(db, MIGRATIONS_TABLE, TEMPLATE_MIGRATIONS);
    const store = new SqlTemplateStore(async () => db, BOUNDS);
    expect(await store.templates({ tenant: SHARED_TENANT, host: "shop.example" })).toEqual([
      { signature: "old", paths: ["p1"], pages: 3 },
    ]);
    expect(await store.templates({ tenant: TENANT, host: "shop.example" })).toEqual([]);
    // One signature, learned apart by two accounts: two templates.
    await store.record({ tenant: TENANT, host: "shop.example", signature: "old" }, ["p1"], []);
    expect((await store.list("shop.example")).map((t) => [t.tenant, t.pages]).sort()).toEqual([
      ["", 3],
      ["acct-a", 1],
    ]);
  });

  it("ignores rows it cannot read as locators", async () => {
    const { store, db } = await openStore(backend);
    const learner = new TemplateLearner(store, logger);
    await teach(learner, page("One", "$1.00"), "shop.example", { title: "One", price_usd: 1 });
    await teach(learner, page("Two", "$2.00"), "shop.example", { title: "Two", price_usd: 2 });
    // Rows written by hand or by a newer version: a locator of another shape, a selector the parser refuses.
    await db!.query(
      `INSERT INTO extractor_locators (template_id, field, locator_key, locator, agree, disagree)
       SELECT id, 'title:string', 'bad1', '{"path": 1, "index": "x"}'::jsonb, 50, 0 FROM extractor_templates
       UNION ALL SELECT id, 'title:string', 'bad2', '{"path": "h1[[[", "index": 0}'::jsonb, 50, 0 FROM extractor_templates
       UNION ALL SELECT id, 'price_usd:number', 'bad3', '"not an object"'::jsonb, 50, 0 FROM extractor_templates`,
    );
    const third = await teach(learner, page("Three", "$3.50"), "shop.example", {});
    expect(third.get("title")?.value).toBe("Three");
    expect(third.get("price_usd")?.value).toBe(3.5);
  });
});

it("extracts without templates while the database cannot be opened", async () => {
  const store = new SqlTemplateStore(
    () => openTemplateDatabase({ databaseUrl: "postgres://postgres@127.0.0.1:1/test", dataDir: "unused", logger }),
    BOUNDS,
  );
  const loaded = loadPage(page("One", "$1.00"), "https://shop.example/p");
  const learner = new TemplateLearner(store, logger);
  expect(await learner.templateFor(pageLayout(loaded.$, loaded.url, TENANT)!)).toBeUndefined();
  await expect(store.record({ tenant: TENANT, host: "shop.example", signature: "s" }, [], [])).rejects.toMatchObject({
    type: "backend-unavailable",
  });
  await store.close();
});

it("reports an unreachable template database as backend-unavailable", async () => {
  const db = openPostgres("postgres://postgres@127.0.0.1:1/test", logger, "the template database");
  await expect(db.query("SELECT 1")).rejects.toMatchObject({
    type: "backend-unavailable",
    message: "the template database is unavailable",
  });
  await db.close();
});

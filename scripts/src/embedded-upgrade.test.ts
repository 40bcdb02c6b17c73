import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { seedPgliteDirectory } from "@winnow/platform/pglite-seed";
import { openPglite } from "@winnow/platform/sql";
import { afterEach, beforeEach, expect, it } from "vitest";
import { carryBatchJobsOver } from "./embedded-upgrade.js";

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "winnow-upgrade-"));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A gateway database as one from before the jobs worker left it: a batch job recorded in it. */
async function gatewayDatabaseWithAJob(): Promise<void> {
  const at = path.join(dataDir, "gateway-db");
  await seedPgliteDirectory(at);
  const db = await openPglite(at);
  await db.exec(
    "CREATE TABLE batch_jobs (id text PRIMARY KEY); INSERT INTO batch_jobs VALUES ('job-before-the-upgrade');",
  );
  await db.close();
}

it("starts the jobs worker's database as a copy of the gateway's, so jobs from before the upgrade carry on", async () => {
  await gatewayDatabaseWithAJob();
  expect(await carryBatchJobsOver(dataDir)).toBe(true);
  const jobs = await openPglite(path.join(dataDir, "jobs-db"));
  expect(await jobs.query("SELECT id FROM batch_jobs")).toEqual([{ id: "job-before-the-upgrade" }]);
  await jobs.close();
  expect((await readdir(dataDir)).sort()).toEqual(["gateway-db", "jobs-db"]);
});

it("leaves a jobs database that exists as it is, and does nothing on a new data directory", async () => {
  expect(await carryBatchJobsOver(dataDir)).toBe(false);
  expect(await readdir(dataDir)).toEqual([]);
  await gatewayDatabaseWithAJob();
  await mkdir(path.join(dataDir, "jobs-db"));
  expect(await carryBatchJobsOver(dataDir)).toBe(false);
  expect(await readdir(path.join(dataDir, "jobs-db"))).toEqual([]);
});

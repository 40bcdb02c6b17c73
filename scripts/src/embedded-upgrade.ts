/**
 * An embedded data directory from before the jobs worker kept its batch jobs in the gateway's database
 * (`gateway-db/`); the jobs worker reads them from its own (`jobs-db/`). On the first `npm start` after the upgrade,
 * before any service opens a database, the jobs worker's starts as a copy of the gateway's, so the jobs submitted
 * before carry on: their pages, results and queue. The gateway's copy of them is left unused.
 */
import { access, cp, rename, rm } from "node:fs/promises";
import path from "node:path";

const exists = (at: string) =>
  access(at).then(
    () => true,
    () => false,
  );

/** Whether the jobs worker's database was made from the gateway's (only where it had none and the gateway had one). */
export async function carryBatchJobsOver(dataDir: string): Promise<boolean> {
  const gateway = path.join(dataDir, "gateway-db");
  const jobs = path.join(dataDir, "jobs-db");
  if (!(await exists(gateway)) || (await exists(jobs))) return false;
  // Aside first, then renamed into place: a copy cut short (a crash, a full disk) must not pass for the database.
  const aside = `${jobs}.copying`;
  await rm(aside, { recursive: true, force: true });
  await cp(gateway, aside, { recursive: true });
  await rename(aside, jobs);
  return true;
}

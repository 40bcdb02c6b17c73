/**
 * Throwaway embedded databases (tests, benchmarks, throwaway stacks) start as
 * copies of one pristine PGlite cluster instead of each running initdb: a new
 * cluster costs about ten CPU seconds, a copy a fraction of one, and a stack
 * has four. The pristine cluster is made once per PGlite version and user in
 * the temp directory (made aside, then renamed into place, so a reader never
 * sees half of one) and holds nothing but what initdb writes: each service
 * still runs its own migrations on its copy.
 */
import { randomUUID } from "node:crypto";
import { access, cp, mkdir, readFile, rename, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";

let pristine: Promise<string> | undefined;

/** Makes `directory` a fresh PGlite cluster, unless it holds one already (a restart on the same data). */
export async function seedPgliteDirectory(directory: string): Promise<void> {
  if (await exists(path.join(directory, "PG_VERSION"))) return;
  pristine ??= pristineCluster();
  await mkdir(path.dirname(directory), { recursive: true });
  await cp(await pristine, directory, { recursive: true });
}

async function pristineCluster(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const { version } = JSON.parse(await readFile(path.join(path.dirname(entry), "..", "package.json"), "utf8"));
  const cluster = path.join(tmpdir(), `winnow-pglite-${version}-${userInfo().uid}`);
  if (await exists(cluster)) return cluster;
  const aside = `${cluster}.${randomUUID()}`;
  const db = await PGlite.create(aside);
  await db.close();
  // Another process may have made it meanwhile: theirs stands, ours goes.
  await rename(aside, cluster).catch(() => rm(aside, { recursive: true, force: true }));
  return cluster;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

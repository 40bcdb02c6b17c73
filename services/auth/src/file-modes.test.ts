/**
 * The auth service as its own process on a fresh data directory: the
 * embedded database, the dev key and the generated encryption key are its
 * user's alone; and a database left readable by an older version is made so
 * at start.
 */
import { chmod, lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../../../test/support/ports.js";
import { startService } from "../../../test/support/service-process.js";

/** Every path under `directory` (and itself) that group or others may use, with its mode. */
async function openToOthers(directory: string): Promise<string[]> {
  const names = ["", ...(await readdir(directory, { recursive: true }))];
  const modes = await Promise.all(names.map(async (name) => [name, (await lstat(path.join(directory, name))).mode]));
  return modes
    .filter(([, mode]) => (mode as number) & 0o077)
    .map(([name, mode]) => `${name} ${(mode as number).toString(8)}`);
}

describe("auth's files", () => {
  let dataDir: string;
  const runAuth = async () => {
    const [port] = (await freePorts(1)) as [number];
    const auth = await startService(
      "auth",
      { GRPC_PORT: String(port), WINNOW_DATA_DIR: dataDir, METRICS_PORT: "0" },
      `127.0.0.1:${port}`,
    );
    await auth.stop();
  };
  beforeAll(async () => {
    dataDir = path.join(await mkdtemp(path.join(tmpdir(), "winnow-modes-")), "data");
  });
  afterAll(() => rm(path.dirname(dataDir), { recursive: true, force: true }));

  it("are readable and writable by their owner only: the data directory, the database (WAL included), the keys", async () => {
    await runAuth();
    const names = await readdir(dataDir, { recursive: true });
    expect(names).toEqual(expect.arrayContaining(["auth-db", "dev-api-key", "encryption-key"]));
    expect(names.some((name) => name.startsWith(path.join("auth-db", "pg_wal")))).toBe(true);
    expect(await openToOthers(dataDir)).toEqual([]);
  });

  it("are made so at start when a database was left open to others", async () => {
    const database = path.join(dataDir, "auth-db");
    for (const name of ["", ...(await readdir(database, { recursive: true }))]) {
      const entry = path.join(database, name);
      await chmod(entry, (await lstat(entry)).isDirectory() ? 0o777 : 0o666);
    }
    expect((await openToOthers(database)).length).toBeGreaterThan(100);
    await runAuth();
    expect(await openToOthers(database)).toEqual([]);
  });
});

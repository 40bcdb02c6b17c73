/**
 * A Postgres server of the test's own (the machine's binaries, a temp data
 * directory, a free port), so a test can restart it without disturbing the
 * shared server other tests use.
 */
import { execFile } from "node:child_process";
import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePorts } from "./ports.js";

const run = promisify(execFile);

export interface PrivatePostgres {
  url: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function binDir(): Promise<string> {
  const versions = (await readdir("/usr/lib/postgresql")).sort();
  const newest = versions.at(-1);
  if (!newest) throw new Error("no Postgres server binaries under /usr/lib/postgresql");
  return path.join("/usr/lib/postgresql", newest, "bin");
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await binDir();
  const dir = await mkdtemp(path.join(tmpdir(), "winnow-pg-"));
  const [port] = (await freePorts(1)) as [number];
  // Postgres refuses to run as root; as root, run it as the postgres user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout), Number(gid));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  const data = path.join(dir, "data");
  await pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (...args: string[]) => pg("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", ...args]);
  await ctl("-o", options, "start");
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => ctl("-m", "fast", "-o", options, "restart").then(() => undefined),
    async stop() {
      await ctl("-m", "immediate", "stop").catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The generated TypeScript is committed; this fails when it no longer matches
 * what `npm run proto` would generate from proto/, and when buf lint fails.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { REPO_ROOT } from "../scripts/src/stack.js";

const run = promisify(execFile);
const BUF = path.join(REPO_ROOT, "node_modules/.bin/buf");
const COMMITTED = path.join(REPO_ROOT, "packages/platform/src/gen");
let work: string | undefined;

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

it("committed generated code is up to date with proto/", async () => {
  work = await mkdtemp(path.join(tmpdir(), "winnow-proto-"));
  const protoCopy = path.join(work, "proto");
  await cp(path.join(REPO_ROOT, "proto"), protoCopy, { recursive: true });
  // The real template, with its output redirected into the scratch directory.
  const template = (await readFile(path.join(REPO_ROOT, "proto/buf.gen.yaml"), "utf8"))
    .replace(/local: .*/, `local: ${path.join(REPO_ROOT, "node_modules/.bin/protoc-gen-ts_proto")}`)
    .replace(/out: .*/, "out: ../gen");
  await writeFile(path.join(protoCopy, "buf.gen.yaml"), template);
  await run(BUF, ["generate"], { cwd: protoCopy });

  const fresh = await listFiles(path.join(work, "gen"));
  expect(await listFiles(COMMITTED), "run `npm run proto` and commit the result").toEqual(fresh);
  for (const file of fresh) {
    const expected = await readFile(path.join(work, "gen", file), "utf8");
    expect(await readFile(path.join(COMMITTED, file), "utf8"), `${file} is stale: run \`npm run proto\``).toBe(
      expected,
    );
  }
});

it("the contracts pass buf lint", async () => {
  await run(BUF, ["lint"], { cwd: path.join(REPO_ROOT, "proto") });
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

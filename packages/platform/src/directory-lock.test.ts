import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { lockDirectory } from "./directory-lock.js";
import { StartupError } from "./lifecycle.js";

let parent: string | undefined;
afterEach(async () => {
  if (parent) await rm(parent, { recursive: true, force: true });
});

it("lets one holder at a time lock a directory, and names it and the remedy to the next", async () => {
  parent = await mkdtemp(path.join(tmpdir(), "winnow-lock-"));
  const directory = path.join(parent, "db");
  const release = await lockDirectory(directory, "choose another");
  const second = lockDirectory(directory, "choose another");
  await expect(second).rejects.toBeInstanceOf(StartupError);
  await expect(second).rejects.toThrow(`${directory} is in use by another process; choose another`);
  await release();
  const again = await lockDirectory(directory, "choose another");
  await again();
});

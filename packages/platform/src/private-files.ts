/**
 * Data on disk (the embedded databases, keys) is its user's alone: no other
 * local user may read or edit it.
 */
import { chmod, lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";

const GROUP_AND_OTHER = 0o077;

/** Files and directories this process creates from now on are 0600 and 0700 (children inherit it too). */
export function keepFilesPrivate(): void {
  process.umask(GROUP_AND_OTHER);
}

/** Creates `directory` (and missing parents) 0700, and makes an existing one 0700: nothing under it is reachable by others. */
export async function ownerOnlyDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await chmod(directory, 0o700);
}

/** Takes group and other permissions off everything under `directory` (symbolic links are left alone). */
export async function removeGroupAndOtherAccess(directory: string): Promise<void> {
  for (const name of await readdir(directory, { recursive: true })) {
    const entry = path.join(directory, name);
    const { mode } = await lstat(entry);
    if ((mode & 0o170000) !== 0o120000 && (mode & GROUP_AND_OTHER) !== 0) {
      await chmod(entry, mode & 0o7700);
    }
  }
}

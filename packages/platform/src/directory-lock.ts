/**
 * An exclusive lock on a directory between processes (proper-lockfile: a
 * `<directory>.lock` beside it, kept fresh while the holder lives, released on
 * exit; one left by a killed process goes stale after STALE_MS). An embedded
 * database and `npm start`'s data directory are one process's at a time.
 */
import lockfile from "proper-lockfile";
import { StartupError } from "./lifecycle.js";

const STALE_MS = 10_000;

/**
 * Takes the lock, or throws a StartupError whose message names the directory
 * and `remedy` (how to choose another). Resolves to the release function.
 */
export async function lockDirectory(directory: string, remedy: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(directory, {
      realpath: false,
      stale: STALE_MS,
      // Losing the lock (the process stalled longer than STALE_MS and another took it over) must not go on silently.
      onCompromised: (error) => {
        throw new StartupError(`lost the lock on ${directory}: ${error.message}`);
      },
    });
  } catch (error) {
    if ((error as { code?: string }).code !== "ELOCKED") throw error;
    throw new StartupError(`${directory} is in use by another process; ${remedy}`);
  }
}

import { execFileSync } from "node:child_process";

interface ProcessRow {
  pid: number;
  ppid: number;
  /** ps's state letter: a zombie ("Z") has exited and waits only to be reaped. */
  state: string;
}

function processTable(): ProcessRow[] {
  return execFileSync("ps", ["-A", "-o", "pid=,ppid=,stat="], { encoding: "utf8" })
    .split("\n")
    .flatMap((line) => {
      const [pid, ppid, state] = line.trim().split(/\s+/);
      return pid && ppid && state ? [{ pid: Number(pid), ppid: Number(ppid), state }] : [];
    });
}

/** The processes descended from `pid` right now (its children, theirs, ...). */
export function descendants(pid: number): number[] {
  const table = processTable();
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    frontier = table.filter((row) => frontier.includes(row.ppid)).map((row) => row.pid);
    found.push(...frontier);
  }
  return found;
}

/** Those of `pids` still running (a zombie has exited: only its parent, or init, has yet to reap it). */
export function stillRunning(pids: number[]): number[] {
  const running = new Set(
    processTable()
      .filter((row) => !row.state.startsWith("Z"))
      .map((row) => row.pid),
  );
  return pids.filter((pid) => running.has(pid));
}

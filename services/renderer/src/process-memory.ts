import { readdirSync, readFileSync } from "node:fs";

const PAGE_SIZE = 4096;

/**
 * Resident memory of the child processes of `rootPid`, all generations (the
 * browser's processes when called with this process's pid), read from /proc.
 * `includeRoot` adds the root's own. 0 where /proc is missing.
 */
export function descendantsRssBytes(rootPid: number, includeRoot = false): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return 0;
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesized command name: state, ppid, ..., rss (the 22nd).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      rss.set(Number(entry), Number(fields[21]) * PAGE_SIZE);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  let total = includeRoot ? (rss.get(rootPid) ?? 0) : 0;
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

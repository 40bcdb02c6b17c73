import { readdirSync, readFileSync } from "node:fs";

const PAGE_SIZE = 4096;

interface ProcessTable {
  children: Map<number, number[]>;
  rssBytes: Map<number, number>;
}

/** Every process's parent and resident memory, read from /proc; undefined where /proc is missing. */
function readProcessTable(): ProcessTable | undefined {
  const children = new Map<number, number[]>();
  const rssBytes = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesized command name: state, ppid, ..., rss (the 22nd).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      rssBytes.set(Number(entry), Number(fields[21]) * PAGE_SIZE);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  return { children, rssBytes };
}

/** `roots` and all their descendants. */
function withDescendants(table: ProcessTable, roots: number[]): number[] {
  const found: number[] = [];
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    found.push(pid);
    stack.push(...(table.children.get(pid) ?? []));
  }
  return found;
}

/**
 * Resident memory of the child processes of `rootPid`, all generations, read
 * from /proc. `includeRoot` adds the root's own. 0 where /proc is missing.
 * Pages shared between processes count once per process.
 */
export function descendantsRssBytes(rootPid: number, includeRoot = false): number {
  const table = readProcessTable();
  if (!table) return 0;
  const roots = includeRoot ? [rootPid] : (table.children.get(rootPid) ?? []);
  return withDescendants(table, roots).reduce((total, pid) => total + (table.rssBytes.get(pid) ?? 0), 0);
}

/**
 * Memory of the browsers this process launched with the argument
 * `launchedWith` (its children that have it on their command line) and all their processes, each shared page
 * split among its sharers (PSS). Chromium's processes share most of their
 * pages, so summed RSS counts the same memory several times over: about 3x for
 * four pages open. 0 where /proc is missing.
 */
export function browserMemoryBytes(launchedWith: string): number {
  const table = readProcessTable();
  if (!table) return 0;
  return browserProcesses(table, launchedWith).reduce(
    (total, pid) => total + (proportionalBytes(pid) ?? table.rssBytes.get(pid) ?? 0),
    0,
  );
}

/** The processes of the browsers this process launched with the argument `launchedWith`; none where /proc is missing. */
export function browserPids(launchedWith: string): number[] {
  const table = readProcessTable();
  return table ? browserProcesses(table, launchedWith) : [];
}

function browserProcesses(table: ProcessTable, launchedWith: string): number[] {
  const browsers = (table.children.get(process.pid) ?? []).filter((pid) => commandLine(pid).includes(launchedWith));
  return withDescendants(table, browsers);
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** PSS from smaps_rollup (Linux 4.14+); undefined where the kernel has none. */
function proportionalBytes(pid: number): number | undefined {
  try {
    const pss = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return pss ? Number(pss[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

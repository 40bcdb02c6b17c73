import { readFileSync } from "node:fs";

/** CPU time (user + system) in ms of a /proc stat file; /proc counts in clock ticks of 10 ms (Linux only). */
function statMs(file: string): number {
  const fields = readFileSync(file, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time a process has used so far, in ms: all its threads. */
export function cpuMs(pid: number): number {
  return statMs(`/proc/${pid}/stat`);
}

/**
 * CPU time a process's main thread (the event loop) has used so far, in ms. The rest of a process's time is its other
 * threads': worker threads (the extractor's extractions), V8's (optimizing compiler, garbage collector) and libuv's.
 */
export function mainThreadCpuMs(pid: number): number {
  return statMs(`/proc/${pid}/task/${pid}/stat`);
}

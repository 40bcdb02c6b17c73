import { readFileSync } from "node:fs";

/** CPU time (user + system) a process has used so far, in ms; /proc counts in clock ticks of 10 ms (Linux only). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

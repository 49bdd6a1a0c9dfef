import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time a process has used so far, all its threads together, in nanoseconds: the first field of
 * each thread's /proc/<pid>/task/<tid>/schedstat (time on a CPU). Finer than the 10 ms ticks of
 * /proc/<pid>/stat, and unlike wall time it barely moves when other processes load the machine.
 */
export function processCpuNs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended while we looked.
    }
  }
  return total;
}

import "server-only";
/**
 * Parts of /proc codex has no use for, covered after `--proc /proc`: the host kernel's memory and
 * symbols (kcore, kallsyms, kpage*: kpagecount alone streams 8 bytes per page of the host's RAM),
 * its command line, keys, timers, devices and hardware. A file gets /dev/null bound over it (it
 * then cannot be opened), a folder an empty read-only tmpfs. bwrap already makes sys,
 * sysrq-trigger, irq and bus read-only.
 *
 * What /proc shows per process (/proc/<pid>/pagemap, mem, …) cannot be covered this way: the
 * process's pid is not known while the sandbox is built, and every thread has its own copy under
 * task/. Reading those costs memory, which the memory limit bounds (limits.ts).
 */
import { existsSync, statSync } from "node:fs";

const MASKED = [
  "kcore",
  "kallsyms",
  "kmsg",
  "kpagecgroup",
  "kpagecount",
  "kpageflags",
  "keys",
  "key-users",
  "timer_list",
  "sched_debug",
  "cmdline",
  "config.gz",
  "modules",
  "iomem",
  "ioports",
  "vmallocinfo",
  "slabinfo",
  "pagetypeinfo",
  "buddyinfo",
  "zoneinfo",
  "latency_stats",
  "mtrr",
  "partitions",
  "diskstats",
  "devices",
  "interrupts",
  "softirqs",
  "locks",
  "swaps",
  "dma",
  "misc",
  "consoles",
  "crypto",
  "acpi",
  "scsi",
  "driver",
  "dynamic_debug",
  "fs",
  "tty",
];

/** The bwrap arguments for what the host's own /proc has of the list (the same kernel: the same entries). */
export function procMaskArgs(): string[] {
  const args: string[] = [];
  for (const name of MASKED) {
    const path = `/proc/${name}`;
    if (!existsSync(/* turbopackIgnore: true */ path)) continue;
    if (statSync(/* turbopackIgnore: true */ path).isDirectory()) args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  return args;
}

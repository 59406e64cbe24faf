// CPU time of a process tree, read from /proc: what a benchmark's app and its children spent.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Every process's parent and CPU ticks (utime + stime of all its threads), from /proc. */
function processStats(): Map<number, { ppid: number; ticks: number }> {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // exited meanwhile
    }
  }
  return stats;
}

function treeOf(rootPid: number, stats: Map<number, { ppid: number }>): number[] {
  const queue = [rootPid];
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const pid = queue[i] as number;
    for (const [child, s] of stats) if (s.ppid === pid) queue.push(child);
  }
  return queue;
}

/** A process and its descendants, now; just the process off Linux. */
export function processTree(rootPid: number): number[] {
  try {
    return treeOf(rootPid, processStats());
  } catch {
    return [rootPid];
  }
}

/** utime + stime (ms) of a process and its descendants, from /proc; undefined off Linux. */
export function cpuMs(rootPid: number): number | undefined {
  try {
    const stats = processStats();
    const ticks = treeOf(rootPid, stats).reduce((sum, pid) => sum + (stats.get(pid)?.ticks ?? 0), 0);
    return (ticks * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

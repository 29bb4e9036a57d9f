import { readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc's CPU times: USER_HZ, 100 on every Linux architecture Kubernetes ships for. */
const USER_HZ = 100;

/** CPU seconds (user + system, all threads) another process has used so far, from `/proc/<pid>/stat`. */
export async function processCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces; fields after it start at 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  return (utime + stime) / USER_HZ;
}

/** This process's CPU seconds (user + system) since `since`, a `process.cpuUsage()` reading. */
export function cpuSecondsSince(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1e6;
}

/** Samples this process's memory on a timer and keeps the peaks, in MiB. */
export class MemorySampler {
  #rssPeak = 0;
  #heapTotalPeak = 0;
  #timer: NodeJS.Timeout | undefined;

  start(intervalMs: number): void {
    this.#sample();
    this.#timer = setInterval(() => {
      this.#sample();
    }, intervalMs);
  }

  /**
   * Stops sampling (after one last sample). `rss` is the resident set; `heapTotal` is what V8 has reserved for its heap,
   * young generation included, the part of `rss` that grows with allocation rate rather than with live data.
   */
  stop(): { rssMib: number; heapTotalMib: number } {
    clearInterval(this.#timer);
    this.#sample();
    return { rssMib: this.#rssPeak / 2 ** 20, heapTotalMib: this.#heapTotalPeak / 2 ** 20 };
  }

  #sample(): void {
    const { rss, heapTotal } = process.memoryUsage();
    this.#rssPeak = Math.max(this.#rssPeak, rss);
    this.#heapTotalPeak = Math.max(this.#heapTotalPeak, heapTotal);
  }
}

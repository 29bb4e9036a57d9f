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

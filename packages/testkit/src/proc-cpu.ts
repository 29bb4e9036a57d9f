import { readFile } from 'node:fs/promises';

/**
 * The CPU time (user + system, in seconds, all threads) process `pid` has used so far, from /proc: for a benchmark on a
 * shared machine to tell the CPU of what it measures from that of its helpers, a figure that the machine's other load
 * moves far less than it moves wall time. With `reapedChildren`, the CPU of the process's children that have exited
 * and been waited for is added (a pipeline's pg_dump and pg_restore, once they are done).
 */
export async function cpuSecondsOf(pid: number | 'self', options: { reapedChildren?: boolean } = {}): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: state is the first, utime the 12th,
  // stime the 13th, cutime and cstime the 14th and 15th (proc(5)), in clock ticks of USER_HZ, which Linux fixes at 100
  // for /proc.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  const own = (fields[11] ?? 0) + (fields[12] ?? 0);
  const children = options.reapedChildren === true ? (fields[13] ?? 0) + (fields[14] ?? 0) : 0;
  return (own + children) / 100;
}

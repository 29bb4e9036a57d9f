// Which process of this machine is a container's main one, for a container this machine's engine does not know by
// name (containerd's, inside a kind node): every process of a container sits in a cgroup whose path holds the
// container's ID, whatever the cgroup driver or version, and the main process is the one whose parent is outside it
// (the runtime's shim). Its /proc is then read as for any process here.
import { readdir, readFile } from 'node:fs/promises';

/** The host PID of the topmost process in the cgroup of container `containerId`; undefined when none runs. */
export async function hostPidOfContainer(containerId: string): Promise<number | undefined> {
  const parentOf = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!(await readFile(`/proc/${entry}/cgroup`, 'utf8')).includes(containerId)) continue;
      const parent = Number(/^PPid:\s+(\d+)/m.exec(await readFile(`/proc/${entry}/status`, 'utf8'))?.[1] ?? 0);
      parentOf.set(Number(entry), parent);
    } catch {
      // The process ended while /proc was read.
    }
  }
  return [...parentOf].find(([, parent]) => !parentOf.has(parent))?.[0];
}

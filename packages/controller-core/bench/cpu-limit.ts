// Runs another process with less CPU, so the core benchmark can measure the controller at a second throughput: with
// the API server limited to a fraction of a core, the controller gets its events more slowly, as on a slower machine.
// Peak memory depends on that speed (a controller that allocates faster between collections grows V8's young
// generation further), so one machine's figure says little about another's without it.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A CPU limit in force; `lift()` moves the process back and removes the group. */
export interface CpuLimit {
  lift(): Promise<void>;
}

const PERIOD_US = 100_000;

/**
 * Puts `pid` (all its threads) in a cgroup of its own limited to `cpus` cores: cgroup v2's `cpu.max` where the unified
 * hierarchy has the cpu controller, else cgroup v1's CFS quota. Needs root; says so when it cannot.
 */
export async function limitCpu(pid: number, cpus: number, name: string): Promise<CpuLimit> {
  const quota = Math.max(1_000, Math.round(cpus * PERIOD_US));
  const v2 = '/sys/fs/cgroup';
  const v2Controllers = join(v2, 'cgroup.controllers');
  const usesV2 = existsSync(v2Controllers) && (await readFile(v2Controllers, 'utf8')).split(/\s+/).includes('cpu');
  const root = usesV2 ? v2 : '/sys/fs/cgroup/cpu';
  if (!existsSync(root)) throw new Error(`cannot limit CPU: neither cgroup v2's cpu controller nor cgroup v1's ${root} is mounted`);
  const group = join(root, name);
  try {
    await mkdir(group, { recursive: true });
    if (usesV2) {
      await writeFile(join(group, 'cpu.max'), `${String(quota)} ${String(PERIOD_US)}`);
    } else {
      await writeFile(join(group, 'cpu.cfs_period_us'), String(PERIOD_US));
      await writeFile(join(group, 'cpu.cfs_quota_us'), String(quota));
    }
    await writeFile(join(group, 'cgroup.procs'), String(pid));
  } catch (error) {
    throw new Error(`cannot limit CPU in ${group} (root is needed to create a cgroup): ${(error as Error).message}`, { cause: error });
  }
  return {
    async lift() {
      // Back to the root group (the process may be gone already), then the empty group can go.
      await writeFile(join(root, 'cgroup.procs'), String(pid)).catch(() => undefined);
      await rmdir(group).catch(() => undefined);
    },
  };
}

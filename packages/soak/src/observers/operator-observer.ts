// Each operator's processes, every 10 s: resident memory, open file descriptors and sockets (from /proc of the
// container's main process), whether the process leads (a leader's caches hold the cluster's objects, a follower's
// do not), and every container restart, told apart from the kills the fault injector made. A
// restart nothing injected keeps the ended container's last log lines, so that the report says why it ended.
import { readdir, readFile, readlink } from 'node:fs/promises';
import type { SoakCluster } from '../cluster/soak-cluster.ts';
import { operatorNamespace } from '../install.ts';
import { repeat } from '../loop.ts';
import type { Recorder } from '../recorder.ts';
import { OPERATORS, type CrashRecord, type OperatorName } from '../timeline.ts';
import { crashLogExcerpt, unreadableReason } from './crash-log.ts';
import { holdsLease, type LeaseRecord } from './lease-holder.ts';

/** How many of the ended container's last log lines are read for its excerpt. */
const LOG_TAIL_LINES = 40;

interface ContainerStatus { name: string; containerID?: string; restartCount: number; state?: { running?: { startedAt?: string } }; lastState?: { terminated?: { exitCode?: number; reason?: string } } }
interface Pod { metadata: { name: string; labels?: Record<string, string> }; status?: { containerStatuses?: ContainerStatus[] } }

async function processFigures(pid: number): Promise<{ rssMiB: number; openFds: number; sockets: number } | undefined> {
  try {
    const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
    const fds = await readdir(`/proc/${String(pid)}/fd`);
    let sockets = 0;
    for (const fd of fds) {
      if ((await readlink(`/proc/${String(pid)}/fd/${fd}`).catch(() => '')).startsWith('socket:')) sockets++;
    }
    return { rssMiB: rssKb / 1024, openFds: fds.length, sockets };
  } catch {
    // The process ended between the listing and the read.
    return undefined;
  }
}

export function observeOperators(cluster: SoakCluster, recorder: Recorder, injectedKills: Set<string>, signal: AbortSignal, onError: (what: string, error: unknown) => void): Promise<void> {
  const restarts = new Map<string, number>();
  return repeat(signal, 10_000, async () => {
    for (const operator of OPERATORS) {
      const namespace = operatorNamespace(operator);
      const leases = (JSON.parse(await cluster.kubectlOk(['-n', namespace, 'get', 'leases', '-o', 'json'])) as { items: LeaseRecord[] }).items;
      const pods = (JSON.parse(await cluster.kubectlOk(['-n', namespace, 'get', 'pods', '-o', 'json'])) as { items: Pod[] }).items;
      for (const pod of pods) await observePod(operator, pod, leases);
    }
  }, (error) => { onError('sampling the operators\' processes', error); });

  async function observePod(operator: OperatorName, pod: Pod, leases: readonly LeaseRecord[]): Promise<void> {
    const at = Date.now();
    for (const container of pod.status?.containerStatuses ?? []) {
      const key = `${pod.metadata.name}/${container.name}`;
      const before = restarts.get(key) ?? 0;
      restarts.set(key, container.restartCount);
      if (container.restartCount > before) {
        const ended = container.lastState?.terminated;
        const injected = injectedKills.delete(pod.metadata.name);
        const crash: CrashRecord = {
          operator, pod: pod.metadata.name, at, injected,
          reason: `container ${container.name} restarted (count ${String(container.restartCount)}): exit code ${String(ended?.exitCode ?? '?')}, ${ended?.reason ?? 'no reason given'}`,
        };
        if (!injected) crash.lastLog = await lastLog(operatorNamespace(operator), pod.metadata.name, container.name);
        recorder.crashes.push(crash);
      }
      // Only the operator itself is measured (the backup store service has its own figures in its metrics).
      if (pod.metadata.labels?.['control-plane'] !== 'controller-manager' || container.state?.running === undefined || container.containerID === undefined) continue;
      const pid = await cluster.containerPid(container.containerID);
      const figures = pid === undefined ? undefined : await processFigures(pid);
      if (figures) {
        const leader = holdsLease(leases, pod.metadata.name, container.state.running.startedAt);
        recorder.processSamples.push({ operator, pod: pod.metadata.name, container: container.containerID, at, leader, ...figures });
      }
    }
  }

  /**
   * The ended container's last log lines. Through kubectl rather than kubectlOk: the ended container may be gone by
   * now (replaced again), and that is said, not thrown.
   */
  async function lastLog(namespace: string, pod: string, container: string): Promise<NonNullable<CrashRecord['lastLog']>> {
    try {
      const result = await cluster.kubectl(['-n', namespace, 'logs', pod, '-c', container, '--previous', `--tail=${String(LOG_TAIL_LINES)}`]);
      if (result.code !== 0) return { unreadable: unreadableReason(result.stderr, result.code) };
      return { lines: crashLogExcerpt(result.stdout) };
    } catch (error) {
      return { unreadable: unreadableReason((error as Error).message) };
    }
  }
}

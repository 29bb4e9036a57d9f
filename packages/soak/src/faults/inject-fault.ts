// Carries out one planned fault on this run's own cluster, stores and Prism Central, holds it for its time, lifts it,
// and records what was done. Nothing here reaches beyond what the run itself started.
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import type { RunningSeaweedFs } from '@k8s-operators/testkit';
import type { SoakCluster } from '../cluster/soak-cluster.ts';
import type { PlannedFault } from '../fault-schedule.ts';
import { OPERATOR_DEPLOYMENT, operatorNamespace } from '../install.ts';
import { sleep } from '../loop.ts';
import type { Random } from '../random.ts';
import type { FaultRecord, OperatorName } from '../timeline.ts';
import { POSTGRESQL_NAMESPACE, type PostgreSQLWorkload } from '../workload/postgresql-workload.ts';

export interface FaultTargets {
  cluster: SoakCluster;
  prism: PrismSimulator;
  seaweed: RunningSeaweedFs;
  postgresql: PostgreSQLWorkload;
  random: Random;
  /** The kills the fault injector made, so the crash detector can tell them from crashes. */
  injectedKills: Set<string>;
}

interface PodView { metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string }; status?: { containerStatuses?: { containerID?: string; state?: { running?: unknown } }[] } }

async function pods(cluster: SoakCluster, namespace: string, selector: string): Promise<PodView[]> {
  return (JSON.parse(await cluster.kubectlOk(['-n', namespace, 'get', 'pods', '-l', selector, '-o', 'json'])) as { items: PodView[] }).items
    .filter((p) => p.metadata.deletionTimestamp === undefined);
}

/** The operator Pod holding its leader Lease (the holder identity is `<pod>_<uuid>`), and the others. */
async function leaderAndFollowers(cluster: SoakCluster, operator: OperatorName): Promise<{ leader?: PodView; followers: PodView[] }> {
  const namespace = operatorNamespace(operator);
  const leases = (JSON.parse(await cluster.kubectlOk(['-n', namespace, 'get', 'leases', '-o', 'json'])) as { items: { spec?: { holderIdentity?: string } }[] }).items;
  const holders = new Set(leases.map((l) => l.spec?.holderIdentity?.split('_')[0]).filter((h) => h !== undefined));
  const all = await pods(cluster, namespace, 'control-plane=controller-manager');
  return { leader: all.find((p) => holders.has(p.metadata.name)), followers: all.filter((p) => !holders.has(p.metadata.name)) };
}

/**
 * SIGKILLs the running container of the Pod `find` names, looking again (for up to 30 s) when there is none or it
 * ended before the signal: right after a rollout or a handover the Lease may still name a Pod that is stopping.
 */
async function kill(targets: FaultTargets, namespace: string, find: () => Promise<PodView | undefined>, signal: AbortSignal): Promise<string> {
  const killed = await waitUntil(async () => {
    const pod = await find();
    const containerID = pod?.status?.containerStatuses?.find((c) => c.state?.running !== undefined)?.containerID;
    if (!pod || containerID === undefined) return undefined;
    targets.injectedKills.add(pod.metadata.name);
    try {
      await targets.cluster.killContainer(containerID);
      return `SIGKILL ${namespace}/${pod.metadata.name} (${containerID})`;
    } catch {
      targets.injectedKills.delete(pod.metadata.name);
      return undefined;
    }
  }, 30_000, signal);
  return killed ?? 'no running container to kill within 30 s';
}

/** Holds a Prism fault rule set for `holdMs`, then removes it. */
async function holdPrismRules(prism: PrismSimulator, rules: Parameters<PrismSimulator['faults']['add']>[0][], holdMs: number, signal: AbortSignal): Promise<string> {
  const ids = rules.map((rule) => prism.faults.add(rule));
  try {
    await sleep(holdMs, signal);
  } finally {
    for (const id of ids) prism.faults.remove(id);
  }
  return rules.map((r) => JSON.stringify(r)).join(', ');
}

/** Waits (bounded) until `found` returns something, polling every second. */
async function waitUntil<T>(found: () => Promise<T | undefined> | T | undefined, ms: number, signal: AbortSignal): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && !signal.aborted) {
    const value = await found();
    if (value !== undefined) return value;
    await sleep(1_000, signal);
  }
  return undefined;
}

async function deleteDatabasePodDuringBackup(targets: FaultTargets, signal: AbortSignal): Promise<string> {
  const { cluster, postgresql, random } = targets;
  const running = (): string | undefined => [...postgresql.backups().values()].find((b) => b.status?.phase === 'Running' && postgresql.servingPod(b.spec.postgresql))?.spec.postgresql;
  let db = running();
  if (db === undefined) {
    const chosen = random.pick(postgresql.liveDatabases());
    await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'apply', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: `${chosen}-fault-${String(Date.now())}` }, spec: { postgresql: chosen, trigger: 'OnDemand' },
    }) });
    db = await waitUntil(running, 60_000, signal);
  }
  const pod = db === undefined ? undefined : postgresql.servingPod(db);
  if (!pod) return 'no backup was running, and none started within 60 s';
  await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'delete', 'pod', pod.metadata.name, '--wait=false']);
  return `deleted ${pod.metadata.name} while a backup of ${db ?? ''} was running`;
}

async function deleteDatabasePodDuringRestore(targets: FaultTargets, signal: AbortSignal): Promise<string> {
  const { cluster, postgresql, random } = targets;
  const db = random.pick(postgresql.liveDatabases());
  const serving = postgresql.servingPod(db);
  if (!serving) return `${db} had no serving pod`;
  await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'delete', 'pod', serving.metadata.name, '--wait=false']);
  // Its successor is being restored until it is labelled appReady=ok: delete it in the middle of that.
  const restoring = await waitUntil(async () => (await pods(cluster, POSTGRESQL_NAMESPACE, `exp.wheel.jp/postgresql=${db}`))
    .find((p) => p.metadata.uid !== serving.metadata.uid && p.metadata.labels?.appReady !== 'ok' && p.status?.containerStatuses?.some((c) => c.state?.running !== undefined)), 90_000, signal);
  if (!restoring) return `deleted ${serving.metadata.name}; its successor never ran unlabelled within 90 s`;
  await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'delete', 'pod', restoring.metadata.name, '--wait=false']);
  return `deleted ${serving.metadata.name}, then its successor ${restoring.metadata.name} while it was being restored`;
}

async function carryOut(fault: PlannedFault, targets: FaultTargets, signal: AbortSignal): Promise<{ target: string; detail: string }> {
  const { cluster, prism, seaweed } = targets;
  const operator = fault.operator ?? 'postgresql-operator';
  switch (fault.kind) {
    case 'leader-kill':
      return { target: operator, detail: await kill(targets, operatorNamespace(operator), async () => (await leaderAndFollowers(cluster, operator)).leader, signal) };
    case 'follower-kill':
      return { target: operator, detail: await kill(targets, operatorNamespace(operator), async () => (await leaderAndFollowers(cluster, operator)).followers[0], signal) };
    case 'leader-delete': {
      const { leader } = await leaderAndFollowers(cluster, operator);
      if (!leader) return { target: operator, detail: 'no leader to delete' };
      await cluster.kubectlOk(['-n', operatorNamespace(operator), 'delete', 'pod', leader.metadata.name, '--wait=false']);
      return { target: operator, detail: `deleted ${leader.metadata.name} gracefully (deployment ${OPERATOR_DEPLOYMENT[operator]})` };
    }
    case 'apiserver-restart':
      await cluster.restartApiServer();
      return { target: 'kube-apiserver', detail: 'stopped and started again on the same etcd' };
    case 'etcd-restart':
      await cluster.restartEtcd();
      return { target: 'etcd', detail: 'stopped and started again on the same data' };
    case 'db-pod-delete-during-backup':
      return { target: POSTGRESQL_NAMESPACE, detail: await deleteDatabasePodDuringBackup(targets, signal) };
    case 'db-pod-delete-during-restore':
      return { target: POSTGRESQL_NAMESPACE, detail: await deleteDatabasePodDuringRestore(targets, signal) };
    case 'backup-store-kill': {
      const store = async (): Promise<PodView | undefined> => (await pods(cluster, operatorNamespace('postgresql-operator'), 'app.kubernetes.io/component=backup-store'))[0];
      return { target: 'backup-store', detail: await kill(targets, operatorNamespace('postgresql-operator'), store, signal) };
    }
    case 'seaweedfs-stop': {
      const outage = await seaweed.interrupt();
      let attempted = '';
      try {
        // A backup asked for while the bucket is down must fail, and say so (PostgreSQLBackupFailed has no `for:`).
        const db = targets.postgresql.liveDatabases('bucket')[0];
        if (db !== undefined) {
          const name = `${db}-during-outage-${String(Date.now())}`;
          await cluster.kubectlOk(['-n', POSTGRESQL_NAMESPACE, 'apply', '-f', '-'], { input: JSON.stringify({
            apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name }, spec: { postgresql: db, trigger: 'OnDemand' },
          }) });
          attempted = `; backup ${name} asked for meanwhile`;
        }
        await sleep(fault.holdMs, signal);
      } finally {
        await outage.resume();
      }
      return { target: 'seaweedfs', detail: `stopped for ${String(Math.round(fault.holdMs / 1000))} s${attempted}` };
    }
    case 'prism-burst':
      return { target: 'prism', detail: await holdPrismRules(prism, [
        { kind: 'rate-limit', probability: 0.2, retryAfterSeconds: 2 }, { kind: 'error', status: 503, probability: 0.1 }, { kind: 'drop', probability: 0.05 },
      ], fault.holdMs, signal) };
    case 'prism-slow-tasks':
      return { target: 'prism', detail: await holdPrismRules(prism, [{ kind: 'slow-task', extraMs: 5_000 }], fault.holdMs, signal) };
    case 'prism-failed-tasks':
      return { target: 'prism', detail: await holdPrismRules(prism, [{ kind: 'task-failure', probability: 0.3 }], fault.holdMs, signal) };
    case 'prism-outage':
      return { target: 'prism', detail: await holdPrismRules(prism, [{ kind: 'error', status: 503 }], fault.holdMs, signal) };
  }
}

export async function injectFault(fault: PlannedFault, index: number, targets: FaultTargets, signal: AbortSignal): Promise<FaultRecord> {
  const startAt = Date.now();
  const { target, detail } = await carryOut(fault, targets, signal).catch((error: unknown) => ({ target: fault.operator ?? fault.kind, detail: `FAILED to inject: ${(error as Error).message}` }));
  return { id: `f${String(index + 1)}`, kind: fault.kind, target, startAt, endAt: Date.now(), detail };
}

// After the workload and the faults stop, and everything has had its settle time: what is left. The VMs in Prism and
// the AhvVms, the objects in both backup stores against the PostgreSQLBackups, each operator's work queue, objects
// stuck behind a finalizer, and objects whose status does not describe their current generation.
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import type { RunningPrometheus, RunningSeaweedFs } from '@k8s-operators/testkit';
import type { SoakCluster } from './cluster/soak-cluster.ts';
import { operatorNamespace, SOAK_BUCKET } from './install.ts';
import { queueDepths } from './observers/prometheus-observer.ts';
import type { Recorder } from './recorder.ts';
import type { StoreContents } from './timeline.ts';
import { MAINTPAGE_NAMESPACE } from './workload/maintpage-workload.ts';
import { NUTANIX_NAMESPACE, prismVms } from './workload/nutanix-workload.ts';
import { POSTGRESQL_NAMESPACE } from './workload/postgresql-workload.ts';

interface Listed { items: { metadata: { name: string; namespace?: string; uid: string; generation?: number; deletionTimestamp?: string; finalizers?: string[] }; spec?: { postgresql?: string }; status?: { observedGeneration?: number; phase?: string } }[] }

/** The custom resources the soak made, by namespace. */
const RESOURCES: readonly [kind: string, namespace: string][] = [
  ['maintpages.maintpage.example.com', MAINTPAGE_NAMESPACE],
  ['postgresqls.exp.wheel.jp', POSTGRESQL_NAMESPACE],
  ['postgresqlbackups.exp.wheel.jp', POSTGRESQL_NAMESPACE],
  ['ahvvms.nutanix.com', NUTANIX_NAMESPACE],
];

/** A stored dump and its manifest are one backup: `<ns>/<db>/<backup>`. Anything else keeps its full name. */
const backupKey = (file: string): string => file.replace(/\.(dump|manifest\.json)$/, '');

async function bucketContents(seaweed: RunningSeaweedFs): Promise<{ keys: string[]; uploads: string[] }> {
  const keys: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 100; page++) {
    const listing = await (await seaweed.request({ method: 'GET', path: `/${SOAK_BUCKET}`, query: { 'list-type': '2', ...(token === undefined ? {} : { 'continuation-token': token }) } })).text();
    keys.push(...[...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1] ?? ''));
    token = /<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(listing)?.[1];
    if (token === undefined) break;
  }
  const uploads = await (await seaweed.request({ method: 'GET', path: `/${SOAK_BUCKET}`, query: { uploads: '' } })).text();
  return { keys, uploads: [...uploads.matchAll(/<Upload>[\s\S]*?<Key>([^<]+)<\/Key>/g)].map((m) => m[1] ?? '') };
}

/** The files on the backup volume, read by a Pod that mounts it (as a user would look, with kubectl alone). */
async function volumeContents(cluster: SoakCluster): Promise<string[]> {
  const namespace = operatorNamespace('postgresql-operator');
  const name = `soak-volume-listing-${String(Date.now())}`;
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace },
    spec: {
      restartPolicy: 'Never',
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
      // The mount itself is printed first, so the log is never empty (testkit's log server cannot serve that) and the
      // files' paths can be made relative to it: the local node runs busybox as a process, with /backup translated.
      containers: [{ name: 'list', image: 'busybox:1.37', command: ['find', '/backup', '(', '-path', '/backup', '-o', '-type', 'f', ')', '-print'], securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, volumeMounts: [{ name: 'backups', mountPath: '/backup', readOnly: true }] }],
      volumes: [{ name: 'backups', persistentVolumeClaim: { claimName: 'postgresql-operator-backups' } }],
    },
  };
  await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(pod) });
  try {
    const deadline = Date.now() + 120_000;
    let phase = '';
    while (phase !== 'Succeeded' && phase !== 'Failed') {
      if (Date.now() > deadline) throw new Error(`pod ${name} listing it did not end within 2 min`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      phase = await cluster.kubectlOk(['-n', namespace, 'get', 'pod', name, '-o', 'jsonpath={.status.phase}']);
    }
    const [root = '', ...files] = (await cluster.kubectlOk(['-n', namespace, 'logs', name])).split('\n').filter(Boolean);
    if (phase === 'Failed') throw new Error(`pod ${name} listing it failed: ${[root, ...files].slice(-5).join('; ')}`);
    const outside = files.filter((file) => !file.startsWith(`${root}/`));
    if (outside.length > 0) throw new Error(`find printed what is not a file under ${root}: ${outside.slice(0, 5).join('; ')}`);
    return files.map((file) => file.slice(root.length + 1));
  } finally {
    await cluster.kubectl(['-n', namespace, 'delete', 'pod', name, '--wait=false']);
  }
}

export async function settleFindings(
  cluster: SoakCluster, prism: PrismSimulator, seaweed: RunningSeaweedFs, prometheus: RunningPrometheus, recorder: Recorder, deletedDatabases: readonly string[],
): Promise<void> {
  const lists = new Map<string, Listed>();
  for (const [kind] of RESOURCES) lists.set(kind, JSON.parse(await cluster.kubectlOk(['get', kind, '-A', '-o', 'json'])) as Listed);
  const items = (kind: string): Listed['items'] => lists.get(kind)?.items ?? [];

  const ahvVms = items('ahvvms.nutanix.com');
  recorder.finalAhvVmUids = ahvVms.map((vm) => vm.metadata.uid);
  recorder.finalPrismVms = prismVms(prism);
  const remaining = new Set(ahvVms.map((vm) => vm.metadata.name));
  for (const vm of recorder.ahvVms) if (vm.deletedAt !== undefined && vm.goneAt === undefined && !remaining.has(vm.name)) vm.goneAt = Date.now();

  const uncheckable: string[] = [];
  const bucket = await bucketContents(seaweed).catch((error: unknown) => {
    uncheckable.push(`the bucket ${SOAK_BUCKET} (${(error as Error).message})`);
    return { keys: [], uploads: [] };
  });
  const volume = await volumeContents(cluster).catch((error: unknown) => {
    uncheckable.push(`the backup volume (${(error as Error).message})`);
    return [];
  });
  const liveBackups = new Set(items('postgresqlbackups.exp.wheel.jp').map((b) => `${b.metadata.namespace ?? ''}/${b.spec?.postgresql ?? ''}/${b.metadata.name}`));
  const objects = [
    ...bucket.keys.map((key) => ({ store: 'bucket' as const, key: backupKey(key) })),
    ...volume.map((key) => ({ store: 'volume' as const, key: backupKey(key) })),
  ].filter((o, i, all) => all.findIndex((p) => p.store === o.store && p.key === o.key) === i);
  const retained = (key: string): boolean => deletedDatabases.some((db) => key.startsWith(`${POSTGRESQL_NAMESPACE}/${db}/`));
  const stores: StoreContents = {
    objects,
    incompleteUploads: bucket.uploads,
    liveBackups: [...liveBackups],
    retainedOnPurpose: objects.map((o) => o.key).filter((key) => !liveBackups.has(key) && retained(key)),
  };
  recorder.stores = stores;
  for (const backup of recorder.backups) {
    if (backup.phase !== 'Completed' || backup.location === undefined || !liveBackups.has(backup.location)) continue;
    backup.objectExists = objects.some((o) => o.store === backup.store && o.key === backup.location);
  }

  const depths = await queueDepths(prometheus).catch((error: unknown) => {
    uncheckable.push(`the work queues (${(error as Error).message})`);
    return recorder.settle.queueDepth;
  });
  recorder.settle = {
    uncheckable,
    queueDepth: depths,
    stuckFinalizers: RESOURCES.flatMap(([kind]) => items(kind).filter((o) => o.metadata.deletionTimestamp !== undefined)
      .map((o) => `${kind}/${o.metadata.namespace ?? ''}/${o.metadata.name} (deleting since ${o.metadata.deletionTimestamp ?? ''}, finalizers ${(o.metadata.finalizers ?? []).join(', ')})`)),
    staleObservedGeneration: RESOURCES.flatMap(([kind]) => items(kind)
      .filter((o) => o.metadata.deletionTimestamp === undefined && o.status?.observedGeneration !== undefined && o.status.observedGeneration !== o.metadata.generation)
      .map((o) => `${kind}/${o.metadata.namespace ?? ''}/${o.metadata.name} (generation ${String(o.metadata.generation)}, observedGeneration ${String(o.status?.observedGeneration)})`)),
  };
}

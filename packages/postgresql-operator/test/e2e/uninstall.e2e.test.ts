// End to end, the operator removed the way a user of its install removes it (E2E_INSTALL, see testkit's e2e-install.ts),
// with a PostgreSQL and a completed volume backup present.
// - `kubectl delete -k deploy/postgresql-operator`, or `kubectl delete -f install.yaml` (the same objects): that deletes
//   the CRDs (and every object of their kinds), the operator's namespace and everything in it, the backup volume's
//   claim included. The backups must not go with it: the install lists no claim; the operator made it and set its
//   volume to Retain, so the volume and the dump on it stay; installed again, the operator binds a new claim to that
//   volume, and a PostgreSQL of the same name restores its data from the kept dump.
// - `helm uninstall`: the chart keeps its CRDs, and the namespace and the claim are not the chart's, so everything
//   stays; the database serves on without the operator, and the operator installed again takes it over as it is,
//   without restoring anything.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { openE2eCluster, waitFor, waitForCrdsEstablished, type E2eCluster } from '@k8s-operators/testkit';
import { queryPod, type DatabaseLogin, type PodAddress } from './cluster-access.ts';

const NS = 'postgresql-e2e-uninstall';
const OPERATOR_NS = 'postgresql-operator-system';
const CLAIM = 'postgresql-operator-backups';
const CRDS = ['postgresqls.exp.wheel.jp', 'postgresqlbackups.exp.wheel.jp'];
const LOGIN: DatabaseLogin = { database: 'app', user: 'app', password: 'kept-secret' };
let cluster: E2eCluster;

interface Pod { metadata: { name: string; deletionTimestamp?: string }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }
interface Volume { metadata: { name: string; labels?: Record<string, string> }; spec: { persistentVolumeReclaimPolicy: string; hostPath?: { path: string }; claimRef?: { namespace: string; name: string } }; status: { phase: string } }

function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const logs = await cluster.kubectl(['-n', OPERATOR_NS, 'logs', '-l', 'control-plane=controller-manager', '--prefix', '--tail=60']);
    const objects = await cluster.kubectl(['get', 'pv,crd', '-o', 'wide']);
    const inNamespaces = await cluster.kubectl(['get', 'pvc,pods,postgresqls,postgresqlbackups', '-A', '-o', 'wide']);
    console.error(`--- operator logs\n${logs.stdout}${logs.stderr}\n--- volumes, CRDs\n${objects.stdout}${objects.stderr}\n--- objects\n${inNamespaces.stdout}${inNamespaces.stderr}`);
  });
}

const apply = (manifest: unknown): Promise<string> => cluster.kubectlOk(['-n', NS, 'apply', '-f', '-'], { input: JSON.stringify(manifest) });

async function install(): Promise<void> {
  await cluster.installer.install('postgresql-operator');
  await waitForCrdsEstablished((args) => cluster.kubectlOk(args), CRDS);
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', 'deployment/postgresql-operator-controller-manager', '--timeout=180s']);
  // The backup store's Pod waits for the claim the operator makes.
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', 'deployment/postgresql-operator-backup-store', '--timeout=180s']);
}

/** The volume bound to the backup claim, once the operator has set it to Retain. */
async function keptVolume(): Promise<Volume> {
  return waitFor(async () => {
    const name = await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pvc', CLAIM, '-o', 'jsonpath={.spec.volumeName}']);
    if (name === '') return undefined;
    const volume = JSON.parse(await cluster.kubectlOk(['get', 'pv', name, '-o', 'json'])) as Volume;
    return volume.spec.persistentVolumeReclaimPolicy === 'Retain' ? volume : undefined;
  }, { what: `the operator to set ${CLAIM}'s volume to Retain`, timeoutMs: 60_000 });
}

async function database(): Promise<void> {
  await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQL', metadata: { name: 'kept' }, spec: { db: 'app', user: 'app', password: 'kept-password', backup: { suspend: true } } });
}

async function servingPod(): Promise<PodAddress> {
  return waitFor(async () => {
    const pods = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'pods', '-l', 'exp.wheel.jp/postgresql=kept,appReady=ok', '-o', 'json'])) as { items: Pod[] };
    const pod = pods.items.find((p) => p.metadata.deletionTimestamp === undefined && p.status.podIP && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    return pod?.status.podIP ? { namespace: NS, name: pod.metadata.name, ip: pod.status.podIP } : undefined;
  }, { what: 'a serving pod of kept', timeoutMs: 180_000 });
}

const REMOVAL = { kustomize: 'kubectl delete -k deploy/postgresql-operator', manifest: 'kubectl delete -f install.yaml', chart: 'helm uninstall' };

describe(`${REMOVAL[(process.env.E2E_INSTALL ?? 'kustomize') as keyof typeof REMOVAL]} with a PostgreSQL and its volume backup present`, () => {
  beforeAll(async () => {
    cluster = await openE2eCluster();
    await install();
    await cluster.freshNamespace(NS);
  }, 300_000);

  afterAll(async () => {
    await (cluster as E2eCluster | undefined)?.close();
  });

  test('the backup volume and its dump stay, and installed again, the operator takes the volume back and the database is restored from it', async () => {
    diagnoseOnFailure();
    // The install lists no claim: the operator made it, labelled, and kept its volume.
    const claimLabels = JSON.parse(await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pvc', CLAIM, '-o', 'jsonpath={.metadata.labels}'])) as Record<string, string>;
    expect(claimLabels).toMatchObject({ 'app.kubernetes.io/managed-by': 'postgresql-operator', 'exp.wheel.jp/backup-volume-namespace': OPERATOR_NS, 'exp.wheel.jp/backup-volume-claim': CLAIM });
    const volume = await keptVolume();
    expect(volume.metadata.labels).toMatchObject({ 'exp.wheel.jp/backup-volume-namespace': OPERATOR_NS, 'exp.wheel.jp/backup-volume-claim': CLAIM });

    await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kept-password' }, stringData: { postgresql_password: LOGIN.password } });
    await database();
    const pod = await servingPod();
    await queryPod(cluster, pod, LOGIN, "CREATE TABLE orders AS SELECT 'before uninstall' AS note, i AS id FROM generate_series(1, 42) AS i");
    await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'kept-1' }, spec: { postgresql: 'kept' } });
    await waitFor(async () => (await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackup', 'kept-1', '-o', 'jsonpath={.status.phase}'])) === 'Completed',
      { what: 'backup kept-1 to complete', timeoutMs: 180_000 });

    if (cluster.installer.way === 'chart') {
      await removedByHelmEverythingStays(pod, volume);
      return;
    }
    // The uninstall: everything deploy/ lists, the namespace with the claim in it, the CRDs with both objects.
    const started = Date.now();
    await cluster.installer.uninstall('postgresql-operator');
    await waitFor(async () => (await cluster.kubectl(['get', 'namespace', OPERATOR_NS])).code !== 0, { what: `namespace ${OPERATOR_NS} to be deleted`, timeoutMs: 180_000 });
    console.log(`namespace ${OPERATOR_NS} deleted in ${String(Date.now() - started)} ms`);
    const after = await waitFor(async () => {
      const got = JSON.parse(await cluster.kubectlOk(['get', 'pv', volume.metadata.name, '-o', 'json'])) as Volume;
      return got.status.phase === 'Released' ? got : undefined;
    }, { what: 'the backup volume to be Released', timeoutMs: 60_000 });
    expect(after.spec.persistentVolumeReclaimPolicy).toBe('Retain');
    // On the local cluster the volume is a directory on this machine: the dump is still on it.
    if (cluster.kind === 'local' && after.spec.hostPath !== undefined) {
      expect(await readdir(join(after.spec.hostPath.path, NS, 'kept'))).toEqual(expect.arrayContaining(['kept-1.dump', 'kept-1.manifest.json']));
    }

    // The operator's Pod stops with its namespace, which kubectl deletes first, so it may not reach an object whose CRD
    // is being deleted: that CRD then waits for the object's finalizer, and installing again lets the operator finish,
    // keeping the data (README, "Uninstalling"); the CRDs that went meanwhile are made again by that install, so it is
    // installed once more after the waiting ones went.
    const waitingCrds = async (): Promise<string[]> => {
      const got = await cluster.kubectl(['get', 'crd', ...CRDS, '--ignore-not-found', '-o', 'json']);
      return (JSON.parse(got.stdout || '{"items":[]}') as { items: { metadata: { name: string; deletionTimestamp?: string } }[] }).items
        .filter((crd) => crd.metadata.deletionTimestamp !== undefined).map((crd) => crd.metadata.name);
    };
    const gone = await waitFor(async () => (await cluster.kubectl(['get', 'crd', ...CRDS, '--ignore-not-found', '-o', 'name'])).stdout.trim() === '', { what: 'the CRDs to be deleted', timeoutMs: 30_000 }).then(() => true, () => false);
    const waiting = gone ? [] : await waitingCrds();
    console.log(`CRDs waiting for the operator installed again: ${waiting.join(', ') || 'none'}`);
    if (waiting.length > 0) {
      await install();
      await waitFor(async () => (await waitingCrds()).length === 0, { what: `the operator installed again to finish removing ${waiting.join(', ')}`, timeoutMs: 180_000 });
    }

    // Installed again: a new claim on the same volume, and a PostgreSQL of the same name restores the kept dump.
    await install();
    expect(await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pvc', CLAIM, '-o', 'jsonpath={.spec.volumeName}'])).toBe(volume.metadata.name);
    await database();
    const restored = await servingPod();
    const rows = await queryPod<{ note: string; count: string }>(cluster, restored, LOGIN, 'SELECT note, count(*)::text AS count FROM orders GROUP BY note');
    expect(rows).toEqual([{ note: 'before uninstall', count: '42' }]);
  }, 900_000);
});

/** `helm uninstall`, then the chart installed again: the operator goes, and nothing of the user's goes with it. */
async function removedByHelmEverythingStays(servedBefore: PodAddress, volume: Volume): Promise<void> {
  await cluster.installer.uninstall('postgresql-operator');
  await waitFor(async () => (await cluster.kubectl(['-n', OPERATOR_NS, 'get', 'deployment', 'postgresql-operator-controller-manager'])).code !== 0,
    { what: 'helm uninstall to delete the operator\'s Deployment', timeoutMs: 60_000 });
  const alive = (resource: string, name: string, namespace?: string): Promise<string> =>
    cluster.kubectlOk([...(namespace === undefined ? [] : ['-n', namespace]), 'get', resource, name, '-o', 'jsonpath={.metadata.name} {.metadata.deletionTimestamp}']);
  for (const crd of CRDS) expect(await alive('crd', crd)).toBe(`${crd} `);
  expect(await alive('postgresql', 'kept', NS)).toBe('kept ');
  expect(await alive('postgresqlbackup', 'kept-1', NS)).toBe('kept-1 ');
  expect(await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackup', 'kept-1', '-o', 'jsonpath={.status.phase}'])).toBe('Completed');
  expect(await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pvc', CLAIM, '-o', 'jsonpath={.status.phase} {.spec.volumeName}'])).toBe(`Bound ${volume.metadata.name}`);
  // Without its operator, the database serves on: the operator runs none of its Pods' processes.
  const rows = async (pod: PodAddress): Promise<unknown> => queryPod(cluster, pod, LOGIN, 'SELECT note, count(*)::text AS count FROM orders GROUP BY note');
  expect(await rows(servedBefore)).toEqual([{ note: 'before uninstall', count: '42' }]);

  // Installed again: it takes over what is there. The same Pod serves the same rows: nothing was restored over them.
  await install();
  expect(await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pvc', CLAIM, '-o', 'jsonpath={.spec.volumeName}'])).toBe(volume.metadata.name);
  // And works: a backup of the database it took over, onto the volume it took back.
  await apply({ apiVersion: 'exp.wheel.jp/v1', kind: 'PostgreSQLBackup', metadata: { name: 'kept-2' }, spec: { postgresql: 'kept' } });
  await waitFor(async () => (await cluster.kubectlOk(['-n', NS, 'get', 'postgresqlbackup', 'kept-2', '-o', 'jsonpath={.status.phase}'])) === 'Completed',
    { what: 'backup kept-2, taken by the operator installed again, to complete', timeoutMs: 180_000 });
  const serving = await servingPod();
  expect(serving.name).toBe(servedBefore.name);
  expect(await rows(serving)).toEqual([{ note: 'before uninstall', count: '42' }]);
}

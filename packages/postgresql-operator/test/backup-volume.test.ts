// The backup volume's claim as the operator keeps it (src/store-service/backup-volume.ts), on a real API server whose
// kube-controller-manager binds claims to volumes: made when missing, its volume set to Retain and labelled once bound,
// and, after the claim and its namespace are deleted as an uninstall deletes them, bound again to the same volume.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, KubeClient, Resources } from '@k8s-operators/controller-core';
import { ControlPlane, waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { backupVolumeLabels, backupVolumeSelector, ensureBackupVolume, keepBackupVolume, PersistentVolumes, type BackupVolume } from '../src/store-service/backup-volume.ts';

let dir: string;
let controlPlane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pg-backup-volume-'));
  controlPlane = await ControlPlane.start({ dir });
  client = await KubeClient.load({ kubeconfig: controlPlane.adminKubeconfig });
}, 120_000);
afterAll(async () => {
  await client.close();
  await controlPlane.stop();
  await rm(dir, { recursive: true, force: true });
});

const namespace = (name: string): Promise<unknown> => client.create(Resources.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
/** A volume as a provisioner makes them, reclaim policy Delete; the class keeps other tests' claims off it. */
const staticVolume = (name: string, storageClassName: string): Promise<unknown> => client.create(PersistentVolumes, {
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', storageClassName, hostPath: { path: join(dir, name) } },
});
const volumeOf = async (name: string): Promise<{ phase?: string; policy?: string; labels?: Record<string, string>; claim?: string }> => {
  const pv = await client.get(PersistentVolumes, { name });
  return { phase: pv?.status?.phase, policy: pv?.spec?.persistentVolumeReclaimPolicy, labels: pv?.metadata?.labels, claim: pv?.spec?.claimRef?.name };
};
const quietLogger = { info: (): void => undefined, error: (fields: object, message: string): void => { throw new Error(`${message} ${JSON.stringify(fields)}`); } };
/** Until the claim is bound: kube-controller-manager binds within seconds. */
const keptSoon = (volume: BackupVolume): Promise<unknown> => keepBackupVolume(client, volume, quietLogger, { intervalMs: 200, attempts: 100 });
/** What kubectl delete -k does: the operator's namespace goes, and the claim with it; the volume stays, Released. */
async function uninstall(volume: BackupVolume, disk: string): Promise<void> {
  await client.delete(Resources.Namespace, { name: volume.namespace });
  await waitFor(async () => (await client.get(Resources.Namespace, { name: volume.namespace })) === undefined, { what: 'the namespace to be deleted', timeoutMs: 60_000 });
  await waitFor(async () => (await volumeOf(disk)).phase === 'Released', { what: 'the volume to be Released', timeoutMs: 30_000 });
}

test('made when missing, its volume kept once bound, and bound again to that volume after an uninstall deleted the claim and its namespace', async () => {
  const volume: BackupVolume = { namespace: 'pg-system', claimName: 'pg-backups', size: '2Gi', storageClassName: 'manual' };
  await namespace(volume.namespace);
  await staticVolume('backups-disk', 'manual');

  expect(await ensureBackupVolume(client, volume)).toBe('created');
  const claim = await client.get(Resources.PersistentVolumeClaim, { namespace: volume.namespace, name: volume.claimName });
  expect(claim?.spec).toMatchObject({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, storageClassName: 'manual' });
  expect(claim?.metadata?.labels).toMatchObject({ 'app.kubernetes.io/managed-by': 'postgresql-operator', ...backupVolumeLabels(volume) });
  // Nothing owns it: no garbage collection takes it with the operator.
  expect(claim?.metadata?.ownerReferences).toBeUndefined();

  // Bound by kube-controller-manager within seconds; until then there is nothing to keep.
  expect(await keptSoon(volume)).toBe('kept');
  expect(await volumeOf('backups-disk')).toEqual({ phase: 'Bound', policy: 'Retain', labels: backupVolumeLabels(volume), claim: 'pg-backups' });
  expect(await ensureBackupVolume(client, volume)).toBe('kept');

  await uninstall(volume, 'backups-disk');
  expect((await volumeOf('backups-disk')).policy).toBe('Retain');

  // Installed again: a new claim of the same name, bound to the same volume (even if the size asked for now is bigger).
  await namespace(volume.namespace);
  expect(await ensureBackupVolume(client, { ...volume, size: '20Gi' })).toBe('reattached');
  expect(await keptSoon(volume)).toBe('kept');
  const again = await client.get(Resources.PersistentVolumeClaim, { namespace: volume.namespace, name: volume.claimName });
  expect(again?.spec).toMatchObject({ volumeName: 'backups-disk', storageClassName: 'manual', resources: { requests: { storage: '5Gi' } } });
  expect(await volumeOf('backups-disk')).toMatchObject({ phase: 'Bound', policy: 'Retain', claim: 'pg-backups' });
}, 180_000);

test('another install\'s kept volume is not taken: only the one labelled for this namespace and claim', async () => {
  const other: BackupVolume = { namespace: 'pg-other', claimName: 'pg-backups', size: '1Gi', storageClassName: 'spare' };
  await namespace(other.namespace);
  await staticVolume('spare-disk', 'spare');
  // backups-disk (the first test's, labelled for pg-system) is Bound; a Released one of another claim would not match either.
  expect(await ensureBackupVolume(client, other)).toBe('created');
  expect(await keptSoon(other)).toBe('kept');
  expect((await client.get(Resources.PersistentVolumeClaim, { namespace: other.namespace, name: other.claimName }))?.spec?.volumeName).toBe('spare-disk');
}, 60_000);

test('two replicas reattaching at once: the one that looked first does not take the volume from the claim the other bound', async () => {
  // Every replica keeps the backup volume at start, before leader election. Seen on kind after an uninstall and a new
  // install: one replica reattached the kept volume and its claim was bound; the other, acting on its earlier look
  // (no claim, the volume Released), cleared the volume's claim uid, and kube-controller-manager marked the claim Lost.
  const volume: BackupVolume = { namespace: 'pg-race', claimName: 'pg-backups', size: '1Gi', storageClassName: 'race' };
  await namespace(volume.namespace);
  await staticVolume('race-disk', 'race');
  expect(await ensureBackupVolume(client, volume)).toBe('created');
  expect(await keptSoon(volume)).toBe('kept');
  await uninstall(volume, 'race-disk');
  await namespace(volume.namespace);

  // The slower replica's look, taken from the API server before the other replica acts: no claim, the volume Released.
  const claimKey = { namespace: volume.namespace, name: volume.claimName };
  expect(await client.get(Resources.PersistentVolumeClaim, claimKey)).toBeUndefined();
  const earlierVolumes = await client.list(PersistentVolumes, { labelSelector: backupVolumeSelector(volume) });
  expect(earlierVolumes.items.map((pv) => pv.status?.phase)).toEqual(['Released']);

  expect(await ensureBackupVolume(client, volume)).toBe('reattached');
  expect(await keptSoon(volume)).toBe('kept');
  const bound = await client.get(Resources.PersistentVolumeClaim, claimKey);

  const slower = {
    get: ((resource, key) => (resource === Resources.PersistentVolumeClaim ? Promise.resolve(undefined) : client.get(resource, key))) as KubeClient['get'],
    list: (() => Promise.resolve(earlierVolumes)) as unknown as KubeClient['list'],
    create: client.create.bind(client), patch: client.patch.bind(client),
  };
  expect(await ensureBackupVolume(slower, volume)).toBe('pending');
  const pv = await client.get(PersistentVolumes, { name: 'race-disk' });
  expect(pv?.spec?.claimRef).toMatchObject({ namespace: volume.namespace, name: volume.claimName, uid: bound?.metadata?.uid });
  expect(await ensureBackupVolume(client, volume)).toBe('kept');
}, 120_000);

test('a claim that race left Lost gets its volume back; any other Lost claim is said once, with what to do', async () => {
  // The first test's race, as the operator before the fix left it: the volume names the claim without its uid.
  const volume: BackupVolume = { namespace: 'pg-race', claimName: 'pg-backups', size: '1Gi', storageClassName: 'race' };
  const claimKey = { namespace: volume.namespace, name: volume.claimName };
  const claimPhase = async (): Promise<string | undefined> => (await client.get(Resources.PersistentVolumeClaim, claimKey))?.status?.phase;
  await client.patch(PersistentVolumes, { name: 'race-disk' }, { type: 'merge', patch: { spec: { claimRef: { uid: null } } } });
  await waitFor(async () => (await claimPhase()) === 'Lost', { what: 'kube-controller-manager to mark the claim Lost', timeoutMs: 90_000 });

  expect(await keepBackupVolume(client, volume, quietLogger, { intervalMs: 200, attempts: 450 })).toBe('kept');
  const claim = await client.get(Resources.PersistentVolumeClaim, claimKey);
  expect(claim?.status?.phase).toBe('Bound');
  expect((await client.get(PersistentVolumes, { name: 'race-disk' }))?.spec?.claimRef?.uid).toBe(claim?.metadata?.uid);

  // A volume bound to another claim is not taken back: a person must look, and is told once.
  await client.patch(PersistentVolumes, { name: 'race-disk' }, { type: 'merge', patch: { spec: { claimRef: { name: 'another-claim', uid: '0b9a3c1e-5d4f-4e2a-9c8b-7a6f5e4d3c2b' } } } });
  await waitFor(async () => (await claimPhase()) === 'Lost', { what: 'kube-controller-manager to mark the claim Lost', timeoutMs: 90_000 });
  const errors: string[] = [];
  const said = { info: (): void => undefined, error: (_fields: object, message: string): void => { errors.push(message); } };
  expect(await keepBackupVolume(client, volume, said, { intervalMs: 1, attempts: 3 })).toBe('lost');
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain('claim is Lost');
  expect(errors[0]).toContain('delete the claim');
  expect((await client.get(PersistentVolumes, { name: 'race-disk' }))?.spec?.claimRef).toMatchObject({ name: 'another-claim' });
}, 240_000);

/** Tries three times with a client whose first read fails with `error`; returns what was logged. */
async function loggedWhenReadFails(error: Error): Promise<string[]> {
  const errors: string[] = [];
  // The real client for everything but the first read.
  const failing = {
    get: (): Promise<never> => Promise.reject(error),
    list: client.list.bind(client), create: client.create.bind(client), patch: client.patch.bind(client),
  } as Pick<KubeClient, 'get' | 'list' | 'create' | 'patch'>;
  const state = await keepBackupVolume(failing, { namespace: 'x', claimName: 'y', size: '1Gi', storageClassName: '' }, { info: () => undefined, error: (_f, message) => { errors.push(message); } }, { intervalMs: 1, attempts: 3 });
  expect(state).toBeUndefined();
  return errors;
}

test('a refusal is logged with what the operator needs, and looked at again', async () => {
  // As the API server refuses the read without the Role.
  const forbidden = new ApiError({ status: 403, body: { kind: 'Status', reason: 'Forbidden', message: 'persistentvolumeclaims "y" is forbidden' }, request: 'GET /api/v1/namespaces/x/persistentvolumeclaims/y' });
  const errors = await loggedWhenReadFails(forbidden);
  expect(errors).toHaveLength(3);
  expect(errors[0]).toContain('get, list and patch on PersistentVolumes');
});

test('an API server that does not answer is said to be one, not blamed on RBAC', async () => {
  // A real connection refused: what the client meets while the API server restarts.
  const refused = await new Promise<Error>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => { connect(port, '127.0.0.1').on('error', resolve); });
    });
  });
  expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  const errors = await loggedWhenReadFails(refused);
  expect(errors).toEqual(Array(3).fill('cannot keep the backup volume yet: the API server did not answer; trying again'));
});

import { setTimeout as sleep } from 'node:timers/promises';
import { apiDidNotAnswer, defineResource, isAlreadyExists, isConflict, isForbidden, Resources, type KubeClient, type Plain } from '@k8s-operators/controller-core';
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';

/**
 * The backup volume: the claim the backup store service mounts, and every volume backup on it. It is not one of the
 * install's objects, since `kubectl delete -k deploy/postgresql-operator` (or `-f install.yaml`) deletes each object
 * the install lists, and the operator's namespace with all it holds: a listed claim went, and with the usual `Delete`
 * reclaim policy, every dump with it. The operator makes the claim instead, and once it is bound, sets its volume's
 * reclaim policy to `Retain` and labels the volume with the claim's namespace and name: whatever deletes the claim,
 * the volume and its dumps stay. Installed again, the operator finds that volume by its labels and binds a new claim
 * of the same name to it, so the backups are there again. Deleting them on purpose is a person's act (README,
 * "Uninstalling").
 */

export interface BackupVolume {
  /** The backup store service's namespace, which the claim must share. */
  namespace: string;
  claimName: string;
  /** A Kubernetes quantity, for a new claim. */
  size: string;
  /** Empty: the cluster's default StorageClass. */
  storageClassName: string;
}

/**
 * What the last look found: a claim was just made (`created`), bound to the volume an earlier install kept
 * (`reattached`), is waiting to be bound (`pending`), is bound to a volume that outlives it (`kept`), or is `Lost`
 * with a volume the operator cannot give back to it (`lost`: a person must look).
 */
export type BackupVolumeState = 'created' | 'reattached' | 'pending' | 'kept' | 'lost';

type PersistentVolume = Plain<V1PersistentVolume>;
type PersistentVolumeClaim = Plain<V1PersistentVolumeClaim>;

export const PersistentVolumes = defineResource<PersistentVolume>({ group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false });

const NAMESPACE_LABEL = 'exp.wheel.jp/backup-volume-namespace';
const CLAIM_LABEL = 'exp.wheel.jp/backup-volume-claim';

/** The labels of the backup volume's claim and of the volume bound to it: how a user (and a new install) finds them. */
export function backupVolumeLabels(volume: BackupVolume): Record<string, string> {
  return { [NAMESPACE_LABEL]: volume.namespace, [CLAIM_LABEL]: volume.claimName };
}

/** The label selector that finds the volume kept for this claim. */
export function backupVolumeSelector(volume: BackupVolume): string {
  return Object.entries(backupVolumeLabels(volume)).map(([name, value]) => `${name}=${value}`).join(',');
}

function labelledFor(pv: PersistentVolume, volume: BackupVolume): boolean {
  return Object.entries(backupVolumeLabels(volume)).every(([name, value]) => pv.metadata?.labels?.[name] === value);
}

/**
 * Changes the volume only as `seen` last read it (its resourceVersion is the precondition): every replica looks at
 * the backup volume at start, and one acting on an older look must not undo what another just did. A Conflict is
 * `pending`: the next look sees what changed.
 */
async function patchVolumeAsSeen(client: VolumeClient, seen: PersistentVolume, spec: object): Promise<'done' | 'pending'> {
  try {
    await client.patch(PersistentVolumes, { name: seen.metadata?.name ?? '' }, { type: 'merge', patch: { metadata: { resourceVersion: seen.metadata?.resourceVersion }, spec } });
    return 'done';
  } catch (error) {
    if (isConflict(error)) return 'pending';
    throw error;
  }
}

const CLAIM_METADATA_LABELS = { 'app.kubernetes.io/component': 'backup-store', 'app.kubernetes.io/managed-by': 'postgresql-operator' };

function newClaim(volume: BackupVolume, spec: { size: string; storageClassName: string; volumeName?: string }): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace: volume.namespace, name: volume.claimName, labels: { ...CLAIM_METADATA_LABELS, ...backupVolumeLabels(volume) } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: spec.size } },
      // A new claim without a class gets the default one; a claim for a kept volume takes its class, even none.
      ...(spec.volumeName === undefined
        ? (spec.storageClassName === '' ? {} : { storageClassName: spec.storageClassName })
        : { storageClassName: spec.storageClassName, volumeName: spec.volumeName }),
    },
  };
}

/** A volume an earlier install kept for this claim: labelled for it, and no longer bound to a claim that exists. */
function keptFor(volumes: readonly PersistentVolume[]): PersistentVolume | undefined {
  return volumes.find((pv) => pv.metadata?.deletionTimestamp === undefined && (pv.status?.phase === 'Released' || pv.status?.phase === 'Available'));
}

type VolumeClient = Pick<KubeClient, 'get' | 'list' | 'create' | 'patch'>;

/** One look at the backup volume, doing the next step it needs. Called again until it says `kept`. */
export async function ensureBackupVolume(client: VolumeClient, volume: BackupVolume): Promise<BackupVolumeState> {
  const key = { namespace: volume.namespace, name: volume.claimName };
  const claim = await client.get(Resources.PersistentVolumeClaim, key);
  if (claim === undefined) return makeClaim(client, volume);
  const phase = claim.status?.phase;
  const volumeName = claim.spec?.volumeName ?? '';
  const bound = (phase === 'Bound' || phase === 'Lost') && volumeName !== '' ? await client.get(PersistentVolumes, { name: volumeName }) : undefined;
  if (phase === 'Lost') return bound === undefined ? 'lost' : giveVolumeBack(client, volume, claim, bound);
  if (bound === undefined) return 'pending';
  if (bound.spec?.persistentVolumeReclaimPolicy !== 'Retain' || !labelledFor(bound, volume)) {
    await client.patch(PersistentVolumes, { name: volumeName }, { type: 'merge', patch: { metadata: { labels: backupVolumeLabels(volume) }, spec: { persistentVolumeReclaimPolicy: 'Retain' } } });
  }
  return 'kept';
}

/**
 * A claim kube-controller-manager marked `Lost` because its volume names it without its uid, as two replicas racing
 * to reattach a kept volume left it before 2026-11-29 (makeClaim's precondition): the volume gets the claim's uid back,
 * and kube-controller-manager binds them again. Any other `Lost` claim is a person's to look at.
 */
async function giveVolumeBack(client: VolumeClient, volume: BackupVolume, claim: PersistentVolumeClaim, bound: PersistentVolume): Promise<BackupVolumeState> {
  const ref = bound.spec?.claimRef;
  if (!labelledFor(bound, volume) || ref?.namespace !== volume.namespace || ref.name !== volume.claimName) return 'lost';
  const uid = ref.uid ?? '';
  // Given back already: kube-controller-manager marks the claim Bound at its next look (every 15 s by default).
  if (uid === claim.metadata?.uid) return 'pending';
  if (uid !== '') return 'lost';
  await patchVolumeAsSeen(client, bound, { claimRef: { uid: claim.metadata?.uid } });
  return 'pending';
}

async function makeClaim(client: VolumeClient, volume: BackupVolume): Promise<BackupVolumeState> {
  const kept = keptFor((await client.list(PersistentVolumes, { labelSelector: backupVolumeSelector(volume) })).items);
  const keptName = kept?.metadata?.name;
  try {
    if (kept === undefined || keptName === undefined) {
      await client.create(Resources.PersistentVolumeClaim, newClaim(volume, volume));
      return 'created';
    }
    // The volume still names the deleted claim (its uid): naming the claim without a uid lets it bind to the new one.
    // Only as listed: a replica with an older look would otherwise take the uid off the claim another replica's new
    // claim was just bound with, and kube-controller-manager marks that claim Lost for good.
    const claimRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: volume.namespace, name: volume.claimName, uid: null, resourceVersion: null };
    if ((await patchVolumeAsSeen(client, kept, { claimRef })) === 'pending') return 'pending';
    const size = kept.spec?.capacity?.storage ?? volume.size;
    await client.create(Resources.PersistentVolumeClaim, newClaim(volume, { size, storageClassName: kept.spec?.storageClassName ?? '', volumeName: keptName }));
    return 'reattached';
  } catch (error) {
    // Another replica made it first.
    if (isAlreadyExists(error)) return 'pending';
    throw error;
  }
}

interface VolumeLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The log line for a failed attempt, for the person on call: RBAC to fix, an API server to wait for, or the error. */
function whyNotKept(error: unknown): string {
  if (apiDidNotAnswer(error)) return 'cannot keep the backup volume yet: the API server did not answer; trying again';
  if (isForbidden(error)) return 'cannot keep the backup volume: the operator needs get and create on its claim and get, list and patch on PersistentVolumes (deploy/postgresql-operator/rbac)';
  return 'cannot keep the backup volume; trying again';
}

/**
 * Looks at the backup volume until its claim is bound to a kept volume (with WaitForFirstConsumer, binding waits for
 * the backup store's Pod, which waits for the claim): every `intervalMs`, at most `attempts` times. Each step and each
 * refusal (missing RBAC says which) goes to the log. Resolves with the last state.
 */
export async function keepBackupVolume(
  client: VolumeClient,
  volume: BackupVolume,
  logger: VolumeLogger,
  { intervalMs = 10_000, attempts = 360, signal }: { intervalMs?: number; attempts?: number; signal?: AbortSignal } = {},
): Promise<BackupVolumeState | undefined> {
  const claim = `${volume.namespace}/${volume.claimName}`;
  let last: BackupVolumeState | undefined;
  for (let attempt = 1; attempt <= attempts && signal?.aborted !== true; attempt += 1) {
    try {
      const state = await ensureBackupVolume(client, volume);
      if (state === 'created') logger.info({ claim, size: volume.size, storageClass: volume.storageClassName || '(default)' }, 'backup volume claim created');
      if (state === 'reattached') logger.info({ claim }, 'backup volume kept by an earlier install found: its backups are back');
      // Said once, not at every look: nothing changes until a person acts.
      if (state === 'lost' && last !== 'lost') {
        logger.error({ claim }, 'the backup volume claim is Lost (its volume is gone or bound to another claim), so the backup store cannot start: look at it with kubectl describe pvc, then delete the claim; the operator makes it again, bound to the volume labelled for it if one is kept');
      }
      last = state;
      if (state === 'kept') {
        logger.info({ claim }, 'backup volume bound; its reclaim policy is Retain, so it outlives the claim and the operator');
        return state;
      }
    } catch (error) {
      logger.error({ claim, error: (error as Error).message }, whyNotKept(error));
    }
    if (attempt < attempts) await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
  }
  return last;
}

import type { AhvVmSpec } from '../api/ahvvm-resource.ts';
import type { ResolvedAhvVmSpec } from '../api/resolved-ahvvm-spec.ts';
import type { PrismEntityKind } from '../vm/prism-vm-api.ts';
import type { DesiredVm } from '../vm/vm-model.ts';
import { descriptionWithOwnerMarker } from './ownership-marker.ts';

/**
 * The VM an AhvVm asks for. The same `DesiredVm` is what a create sends and what `diffVm` compares a VM against: a
 * field it leaves out (power state, boot type, categories, disks, NICs) is one the resource does not manage, so
 * whatever the VM has there is left alone. cloud-init is not part of it: Prism applies user data only at creation, so
 * it is added for the create alone (`withCloudInitUserData`).
 */

/**
 * UUIDs of the Prism entities of `kind` named `name`: none when there is no such entity, several when the name is
 * ambiguous. The caller looks them up beforehand (`namesToResolve` says which), so this stays a plain function.
 */
export type ResolveEntityName = (kind: PrismEntityKind, name: string) => readonly string[];

export interface DesiredVmContext {
  /** Where a VM goes when the resource names no cluster: `PrismConfig.defaultCluster` (PRISM_CLUSTERUUID/NAME). */
  defaultCluster: { uuid?: string; name?: string };
  resolveName: ResolveEntityName;
  /** The cluster the subnets `resolveName` knows were looked up on (only subnets a VM there can use), for messages. */
  subnetsOnCluster?: string;
}

/** The parts of an AhvVm the desired VM is built from: its identity and its spec with the defaults applied. */
export interface AhvVmIdentity {
  metadata: { name?: string; uid?: string };
  spec: ResolvedAhvVmSpec;
}

export type DesiredVmFailureReason = 'ClusterNotFound' | 'ImageNotFound' | 'SubnetNotFound' | 'AmbiguousName' | 'InvalidCloudInit';

export type DesiredVmResult =
  | { ok: true; vm: DesiredVm }
  | { ok: false; reason: DesiredVmFailureReason; message: string };

/** Prism's limit on base64 cloud-init user data (swagger `user_data` maxLength). */
export const MAX_USER_DATA_BASE64_LENGTH = 128_000;

const NOT_FOUND_REASON: Record<PrismEntityKind, DesiredVmFailureReason> = {
  cluster: 'ClusterNotFound',
  image: 'ImageNotFound',
  subnet: 'SubnetNotFound',
};

class UnresolvedName extends Error {
  readonly reason: DesiredVmFailureReason;

  constructor(reason: DesiredVmFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export function desiredVmSpec(avm: AhvVmIdentity, context: DesiredVmContext): DesiredVmResult {
  const { name, uid } = avm.metadata;
  if (name === undefined || uid === undefined) {
    throw new TypeError('desiredVmSpec needs an AhvVm read from the API server (metadata.name and metadata.uid)');
  }
  const { spec } = avm;
  try {
    const uuidOf = (kind: PrismEntityKind, given: { name?: string; uuid?: string }, field: string): string => entityUuid(kind, given, field, context);
    // Devices first, then the cluster: the first name that does not resolve is the one reported.
    const disks = spec.disks?.map((disk, index) => ({
      ...(disk.image === undefined ? {} : { imageUuid: uuidOf('image', disk.image, `disks[${index}].image`) }),
      ...(disk.size_mib === undefined ? {} : { sizeMib: disk.size_mib }),
    }));
    const nics = spec.nics?.map((nic, index) => ({ subnetUuid: uuidOf('subnet', nic.subnet, `nics[${index}].subnet`) }));
    return {
      ok: true,
      vm: {
        name,
        description: descriptionWithOwnerMarker(spec.description, uid),
        clusterUuid: uuidOf('cluster', spec.cluster ?? context.defaultCluster, spec.cluster ? 'cluster' : 'PRISM_CLUSTERNAME'),
        numSockets: spec.num_sockets,
        numVcpusPerSocket: spec.num_vcpus_per_socket,
        memoryMib: spec.memory_size_mib,
        ...(spec.power_state === undefined ? {} : { powerState: spec.power_state === 'PoweredOn' ? 'ON' : 'OFF' }),
        ...(spec.boot_type === undefined ? {} : { bootType: spec.boot_type }),
        ...(spec.categories === undefined ? {} : { categories: { ...spec.categories } }),
        ...(disks === undefined ? {} : { disks }),
        ...(nics === undefined ? {} : { nics }),
      },
    };
  } catch (error) {
    if (!(error instanceof UnresolvedName)) throw error;
    return { ok: false, reason: error.reason, message: error.message };
  }
}

/** The names `desiredVmSpec` will ask `resolveName` about, so the caller can look up only those. */
export function namesToResolve(
  spec: Pick<AhvVmSpec, 'cluster' | 'disks' | 'nics'>,
  defaultCluster: DesiredVmContext['defaultCluster'],
): { kind: PrismEntityKind; name: string }[] {
  const cluster = spec.cluster ?? defaultCluster;
  const names: { kind: PrismEntityKind; name: string }[] = [];
  if (cluster.uuid === undefined && cluster.name !== undefined) names.push({ kind: 'cluster', name: cluster.name });
  for (const disk of spec.disks ?? []) {
    if (disk.image?.uuid === undefined && disk.image?.name !== undefined) names.push({ kind: 'image', name: disk.image.name });
  }
  for (const nic of spec.nics ?? []) {
    if (nic.subnet.uuid === undefined && nic.subnet.name !== undefined) names.push({ kind: 'subnet', name: nic.subnet.name });
  }
  return names;
}

/**
 * The desired VM with cloud-init user data, for its create: the Secret's value as the API server returns it in `data`
 * (base64), which is the encoding Prism wants as well.
 */
export function withCloudInitUserData(desired: DesiredVm, userDataBase64: string): DesiredVmResult {
  const userData = userDataBase64.replace(/\s+/g, '');
  if (userData === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(userData) || userData.length % 4 !== 0) {
    return { ok: false, reason: 'InvalidCloudInit', message: 'the cloud-init user data is empty or not base64' };
  }
  if (userData.length > MAX_USER_DATA_BASE64_LENGTH) {
    return {
      ok: false,
      reason: 'InvalidCloudInit',
      message: `the cloud-init user data is ${userData.length} characters in base64; Prism accepts at most ${MAX_USER_DATA_BASE64_LENGTH}`,
    };
  }
  return { ok: true, vm: { ...desired, cloudInitUserData: userData } };
}

/** The entity's UUID: v3 and v4 take references by UUID (extId) only, so names are resolved first. */
function entityUuid(kind: PrismEntityKind, given: { name?: string; uuid?: string }, field: string, { resolveName, subnetsOnCluster }: DesiredVmContext): string {
  if (given.uuid !== undefined) return given.uuid.toLowerCase();
  if (given.name === undefined) {
    // Only the defaults can lack both: loadPrismConfig refuses a configuration without either.
    throw new UnresolvedName(NOT_FOUND_REASON[kind], `${field}: no ${kind} is named`);
  }
  const uuids = resolveName(kind, given.name);
  const [uuid, ...others] = uuids;
  const named = `named ${JSON.stringify(given.name)}`;
  const where = kind === 'subnet' && subnetsOnCluster !== undefined ? ` that a VM on cluster ${subnetsOnCluster} can use (an overlay subnet, or a VLAN subnet on that cluster)` : '';
  if (uuid === undefined) {
    // Prism Central's own cluster entity is never a match: it runs no VMs.
    const what = kind === 'cluster' ? 'Prism Element cluster' : kind;
    throw new UnresolvedName(NOT_FOUND_REASON[kind], `${field}: Prism Central has no ${what} ${named}${where}; correct the name (it is case-sensitive) or give the ${kind}'s uuid`);
  }
  if (others.length > 0) {
    throw new UnresolvedName('AmbiguousName', `${field}: ${uuids.length} ${kind}s are ${named}${where} (${uuids.join(', ')}); name it by uuid instead`);
  }
  return uuid.toLowerCase();
}

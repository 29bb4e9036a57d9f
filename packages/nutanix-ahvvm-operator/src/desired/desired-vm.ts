import type { AhvVmSpec } from '../api/ahvvm-resource.ts';
import type { ResolvedAhvVmSpec } from '../api/resolved-ahvvm-spec.ts';
import type { PrismEntityKind } from '../vm/prism-vm-api.ts';
import type { DesiredVm } from '../vm/vm-model.ts';
import { imageLookupPattern } from './image-lookup-pattern.ts';
import { descriptionWithOwnerMarker } from './ownership-marker.ts';

/**
 * The VM an AhvVm asks for. The same `DesiredVm` is what a create sends and what `diffVm` compares a VM against: a
 * field it leaves out (power state, boot type, categories, disks, NICs) is one the resource does not manage, so
 * whatever the VM has there is left alone. cloud-init is not part of it: Prism applies user data only at creation, so
 * it is added for the create alone (`withCloudInitUserData`).
 */

/** What a name is looked up as: a Prism entity's exact name, or the pattern of an `image_lookup` (`imageLookupPattern`). */
export type NameKind = PrismEntityKind | 'image_lookup';

/**
 * UUIDs of the Prism entities of `kind` named `name`: none when there is no such entity, several when the name is
 * ambiguous. For `image_lookup`, `name` is the pattern and the UUIDs are those of the matching images, newest first.
 * The caller looks them up beforehand (`namesToResolve` says which), so this stays a plain function.
 */
export type ResolveEntityName = (kind: NameKind, name: string) => readonly string[];

export interface DesiredVmContext {
  /** Where a VM goes when the resource names no cluster: `PrismConfig.defaultCluster` (PRISM_CLUSTERUUID/NAME). */
  defaultCluster: { uuid?: string; name?: string };
  resolveName: ResolveEntityName;
  /**
   * The cluster the subnets and storage containers `resolveName` knows were looked up on (subnets a VM there can use,
   * that cluster's storage containers), for messages.
   */
  subnetsOnCluster?: string;
}

/** The parts of an AhvVm the desired VM is built from: its identity and its spec with the defaults applied. */
export interface AhvVmIdentity {
  metadata: { name?: string; uid?: string };
  spec: ResolvedAhvVmSpec;
}

export type DesiredVmFailureReason =
  | 'ClusterNotFound'
  | 'ImageNotFound'
  | 'SubnetNotFound'
  | 'StorageContainerNotFound'
  | 'ProjectNotFound'
  | 'AmbiguousName'
  | 'InvalidImageLookup'
  | 'InvalidCloudInit';

export type DesiredVmResult =
  | { ok: true; vm: DesiredVm }
  | { ok: false; reason: DesiredVmFailureReason; message: string };

/** Prism's limit on base64 cloud-init user data (swagger `user_data` maxLength). */
export const MAX_USER_DATA_BASE64_LENGTH = 128_000;

const NOT_FOUND_REASON: Record<PrismEntityKind, DesiredVmFailureReason> = {
  cluster: 'ClusterNotFound',
  image: 'ImageNotFound',
  subnet: 'SubnetNotFound',
  storage_container: 'StorageContainerNotFound',
  project: 'ProjectNotFound',
};

/** How a kind reads in a message. */
const KIND_WORDS: Record<PrismEntityKind, string> = { cluster: 'cluster', image: 'image', subnet: 'subnet', storage_container: 'storage container', project: 'project' };

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
      ...(disk.image_lookup === undefined ? {} : { imageUuid: lookedUpImage(disk.image_lookup, `disks[${index}].image_lookup`, context), imageFromLookup: true }),
      ...(disk.size_mib === undefined ? {} : { sizeMib: disk.size_mib }),
      ...(disk.storage_container === undefined ? {} : { storageContainerUuid: uuidOf('storage_container', disk.storage_container, `disks[${index}].storage_container`) }),
    }));
    const nics = spec.nics?.map((nic, index) => ({ subnetUuid: uuidOf('subnet', nic.subnet, `nics[${index}].subnet`) }));
    const projectUuid = spec.project === undefined ? undefined : uuidOf('project', spec.project, 'project');
    return {
      ok: true,
      vm: {
        name,
        description: descriptionWithOwnerMarker(spec.description, uid),
        clusterUuid: uuidOf('cluster', spec.cluster ?? context.defaultCluster, spec.cluster ? 'cluster' : 'PRISM_CLUSTERNAME'),
        ...(projectUuid === undefined ? {} : { projectUuid }),
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
  spec: Pick<AhvVmSpec, 'cluster' | 'disks' | 'nics' | 'project'>,
  defaultCluster: DesiredVmContext['defaultCluster'],
): { kind: NameKind; name: string }[] {
  const cluster = spec.cluster ?? defaultCluster;
  const names: { kind: NameKind; name: string }[] = [];
  if (cluster.uuid === undefined && cluster.name !== undefined) names.push({ kind: 'cluster', name: cluster.name });
  for (const disk of spec.disks ?? []) {
    if (disk.image?.uuid === undefined && disk.image?.name !== undefined) names.push({ kind: 'image', name: disk.image.name });
    const lookup = disk.image_lookup === undefined ? undefined : imageLookupPattern(disk.image_lookup);
    if (lookup?.ok === true) names.push({ kind: 'image_lookup', name: lookup.pattern });
    const container = disk.storage_container;
    if (container?.uuid === undefined && container?.name !== undefined) names.push({ kind: 'storage_container', name: container.name });
  }
  for (const nic of spec.nics ?? []) {
    if (nic.subnet.uuid === undefined && nic.subnet.name !== undefined) names.push({ kind: 'subnet', name: nic.subnet.name });
  }
  if (spec.project?.uuid === undefined && spec.project?.name !== undefined) names.push({ kind: 'project', name: spec.project.name });
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

/**
 * The image an `image_lookup` picks: the newest whose name its pattern matches (`imagesMatchingNewestFirst`), as CAPX
 * picks one; several matches are the point of a lookup, not an ambiguity.
 */
function lookedUpImage(lookup: { format: string; base_os?: string }, field: string, { resolveName }: DesiredVmContext): string {
  const rendered = imageLookupPattern(lookup);
  if (!rendered.ok) throw new UnresolvedName('InvalidImageLookup', `${field}: ${rendered.message}`);
  const [newest] = resolveName('image_lookup', rendered.pattern);
  if (newest === undefined) {
    throw new UnresolvedName('ImageNotFound', `${field}: Prism Central has no image whose name matches ${JSON.stringify(rendered.pattern)}; upload one, or correct format or base_os`);
  }
  return newest.toLowerCase();
}

/** The entity's UUID: v3 and v4 take references by UUID (extId) only, so names are resolved first. */
function entityUuid(kind: PrismEntityKind, given: { name?: string; uuid?: string }, field: string, { resolveName, subnetsOnCluster }: DesiredVmContext): string {
  if (given.uuid !== undefined) return given.uuid.toLowerCase();
  if (given.name === undefined) {
    // Only the defaults can lack both: loadPrismConfig refuses a configuration without either.
    throw new UnresolvedName(NOT_FOUND_REASON[kind], `${field}: no ${KIND_WORDS[kind]} is named`);
  }
  const uuids = resolveName(kind, given.name);
  const [uuid, ...others] = uuids;
  const named = `named ${JSON.stringify(given.name)}`;
  const where = subnetsOnCluster === undefined ? '' : kind === 'subnet' ? ` that a VM on cluster ${subnetsOnCluster} can use (an overlay subnet, or a VLAN subnet on that cluster)` : kind === 'storage_container' ? ` on cluster ${subnetsOnCluster}` : '';
  const words = KIND_WORDS[kind];
  if (uuid === undefined) {
    // Prism Central's own cluster entity is never a match: it runs no VMs.
    const what = kind === 'cluster' ? 'Prism Element cluster' : words;
    throw new UnresolvedName(NOT_FOUND_REASON[kind], `${field}: Prism Central has no ${what} ${named}${where}; correct the name (it is case-sensitive) or give the ${words}'s uuid`);
  }
  if (others.length > 0) {
    throw new UnresolvedName('AmbiguousName', `${field}: ${uuids.length} ${words}s are ${named}${where} (${uuids.join(', ')}); name it by uuid instead`);
  }
  return uuid.toLowerCase();
}

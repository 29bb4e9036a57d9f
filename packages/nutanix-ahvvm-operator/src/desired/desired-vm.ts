import type { AhvVmSpec } from '../api/ahvvm-resource.ts';
import type { ResolvedAhvVmSpec } from '../api/resolved-ahvvm-spec.ts';
import type { PrismDisk, PrismNic, PrismReference, PrismVmIntent, PrismVmResources } from '../prism/prism-types.ts';
import { descriptionWithOwnerMarker } from './ownership-marker.ts';

/**
 * The Prism VM an AhvVm asks for, as the body of POST /vms. The same intent is what `diffVm` compares a VM against:
 * a key it leaves out (`power_state`, `disk_list`, `nic_list`, `boot_config`, `metadata.categories`) is a field the
 * resource does not manage, so whatever the VM has there is left alone. cloud-init is not part of it: Prism applies
 * user data only at creation, so it is added for the create alone (`withCloudInitUserData`).
 */

export type PrismEntityKind = 'cluster' | 'image' | 'subnet';

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
  | { ok: true; intent: PrismVmIntent }
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
    const reference = (kind: PrismEntityKind, given: { name?: string; uuid?: string }, field: string): PrismReference =>
      entityReference(kind, given, field, context);
    const resources: PrismVmResources = {
      num_sockets: spec.num_sockets,
      num_vcpus_per_socket: spec.num_vcpus_per_socket,
      memory_size_mib: spec.memory_size_mib,
      ...(spec.power_state === undefined ? {} : { power_state: spec.power_state === 'PoweredOn' ? 'ON' : 'OFF' }),
      ...(spec.boot_type === undefined ? {} : { boot_config: { boot_type: spec.boot_type } }),
      ...(spec.disks === undefined
        ? {}
        : {
            disk_list: spec.disks.map((disk, index): PrismDisk => ({
              ...(disk.image === undefined ? {} : { data_source_reference: reference('image', disk.image, `disks[${index}].image`) }),
              ...(disk.size_mib === undefined ? {} : { disk_size_mib: disk.size_mib }),
            })),
          }),
      ...(spec.nics === undefined
        ? {}
        : {
            nic_list: spec.nics.map((nic, index): PrismNic => ({
              subnet_reference: reference('subnet', nic.subnet, `nics[${index}].subnet`),
              is_connected: true,
            })),
          }),
    };
    return {
      ok: true,
      intent: {
        metadata: { kind: 'vm', ...(spec.categories === undefined ? {} : { categories: { ...spec.categories } }) },
        spec: {
          name,
          description: descriptionWithOwnerMarker(spec.description, uid),
          cluster_reference: reference('cluster', spec.cluster ?? context.defaultCluster, spec.cluster ? 'cluster' : 'PRISM_CLUSTERNAME'),
          resources,
        },
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
 * The intent for POST /vms with cloud-init user data: the Secret's value as the API server returns it in `data`
 * (base64), which is the encoding Prism wants as well.
 */
export function withCloudInitUserData(intent: PrismVmIntent, userDataBase64: string): DesiredVmResult {
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
  return {
    ok: true,
    intent: {
      metadata: intent.metadata,
      spec: {
        ...intent.spec,
        resources: { ...intent.spec.resources, guest_customization: { cloud_init: { user_data: userData } } },
      },
    },
  };
}

/** `{kind, uuid}`: v3 and v4 take references by UUID (extId) only, so names are resolved first. */
function entityReference(
  kind: PrismEntityKind,
  given: { name?: string; uuid?: string },
  field: string,
  { resolveName, subnetsOnCluster }: DesiredVmContext,
): PrismReference {
  if (given.uuid !== undefined) return { kind, uuid: given.uuid.toLowerCase() };
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
  return { kind, uuid: uuid.toLowerCase() };
}

// A VM as GET /vms/{uuid} and POST /vms/list show it, modelled on the recorded pc.2024.3 responses:
// `spec` is the latest accepted intent, `status` what was last applied, with the
// read-only facts the hypervisor adds and, once the VM has run long enough, the IPs a DHCP server gave it.

import { isoSeconds } from './tasks.ts';
import type { IpEndpoint, StatusMessage, VmRecord, VmSpec, VmState } from './vm-store.ts';

/** The recorded list response's spec_hash: PC returns a zero hash and does not enforce it. */
export const ZERO_SPEC_HASH = '0'.repeat(50);

export interface VmEntity {
  metadata: Record<string, unknown>;
  spec: VmSpec;
  status: VmStatus;
}

export interface VmStatus {
  name: string;
  description?: string;
  state: VmState;
  cluster_reference: VmSpec['cluster_reference'];
  resources?: Record<string, unknown>;
  execution_context: { task_uuid: string[] };
  message_list?: StatusMessage[];
}

export function renderVm(vm: VmRecord, learnedIpDelayMs: number): VmEntity {
  const shown = vm.applied ?? vm.spec;
  const status: VmStatus = {
    name: shown.name,
    ...(shown.description === undefined ? {} : { description: shown.description }),
    state: vm.state,
    cluster_reference: structuredClone(shown.cluster_reference),
    ...(vm.applied ? { resources: statusResources(vm, vm.applied, learnedIpDelayMs) } : {}),
    execution_context: { task_uuid: [vm.lastTaskUuid] },
    ...(vm.messageList.length > 0 ? { message_list: structuredClone(vm.messageList) } : {}),
  };
  return {
    metadata: {
      kind: 'vm',
      uuid: vm.uuid,
      spec_version: vm.specVersion,
      spec_hash: ZERO_SPEC_HASH,
      entity_version: String(vm.entityVersion),
      categories: structuredClone(vm.metadata.categories),
      categories_mapping: structuredClone(vm.metadata.categoriesMapping),
      project_reference: structuredClone(vm.metadata.project_reference),
      owner_reference: structuredClone(vm.metadata.owner_reference),
      creation_time: isoSeconds(vm.creationTime),
      last_update_time: isoSeconds(vm.lastUpdateTime),
    },
    spec: structuredClone(vm.spec),
    status,
  };
}

function statusResources(vm: VmRecord, applied: VmSpec, learnedIpDelayMs: number): Record<string, unknown> {
  const resources = structuredClone(applied.resources);
  const guestHasAddresses = vm.poweredOnAt !== undefined && performance.now() - vm.poweredOnAt >= learnedIpDelayMs;
  return {
    ...resources,
    hypervisor_type: 'AHV',
    bios_uuid: vm.uuid,
    generation_uuid: vm.generationUuid,
    protection_type: 'UNPROTECTED',
    vtpm_config: { ...(resources.vtpm_config as Record<string, unknown> | undefined), version: '' },
    disk_list: resources.disk_list.map((disk) => ({ ...disk, is_migration_in_progress: false })),
    nic_list: resources.nic_list.map((nic) => {
      const learned = vm.learnedIps.get(nic.uuid);
      const endpoints: IpEndpoint[] = guestHasAddresses && nic.is_connected && learned !== undefined ? [...nic.ip_endpoint_list, { ip: learned, type: 'LEARNED' }] : nic.ip_endpoint_list;
      return { ...nic, ip_endpoint_list: endpoints };
    }),
  };
}

import type { UpdateStep } from '../../vm/update-plan.ts';
import { actualPowerState, type DesiredDisk, type DesiredNic, type DesiredVm, type PowerState } from '../../vm/vm-model.ts';
import type { PrismDisk, PrismNic, PrismVm, PrismVmIntent } from './prism-types.ts';
import { diskSizeMib, isDataDisk, reportedPowerState, v3Disk, v3Nic } from './v3-translation.ts';

/**
 * PUT bodies. A v3 PUT replaces the whole spec: whatever it leaves out goes back to defaults, and a disk or NIC sent
 * without its `uuid` is a new one. So each body starts from the VM as a fresh GET returned it — its `spec` and
 * `metadata` with the `spec_version` read, never `status` — and changes only what the AhvVm manages, keeping
 * everything Prism filled in (disk and NIC uuids, addresses, MACs, storage config, boot order, guest customization …).
 */

/** Server-side bookkeeping in `metadata` that a PUT does not send back. */
const READ_ONLY_METADATA = ['creation_time', 'last_update_time', 'entity_version', 'categories_mapping'];

const MIB = 1024 * 1024;

/** The body of the PUT for `step`, built from `current` as just read. */
export function putBodyFor(step: UpdateStep, current: PrismVm, desired: DesiredVm): PrismVmIntent {
  switch (step.action) {
    case 'power-off':
      return withPowerState(current, 'OFF');
    case 'power-on':
      return withPowerState(current, 'ON');
    case 'apply-spec':
      return applyDesiredToCurrentSpec(current, desired);
  }
}

/** The VM's own spec, with only its power state changed. */
export function withPowerState(current: PrismVm, powerState: PowerState): PrismVmIntent {
  const body = currentAsIntent(current);
  body.spec.resources.power_state = powerState;
  return body;
}

/**
 * The VM's spec with the managed fields of `desired` applied and its power state left as it is (power changes are
 * steps of their own). Changes `diffVm` calls impossible are not made: a disk is never shrunk and an extra disk is
 * kept; the cluster stays.
 */
export function applyDesiredToCurrentSpec(current: PrismVm, desired: DesiredVm): PrismVmIntent {
  const body = currentAsIntent(current);
  const resources = body.spec.resources;
  body.spec.name = desired.name;
  body.spec.description = desired.description;
  if (desired.categories !== undefined) body.metadata.categories = { ...desired.categories };
  resources.power_state = actualPowerState({ powerState: reportedPowerState(current) });
  resources.num_sockets = desired.numSockets;
  resources.num_vcpus_per_socket = desired.numVcpusPerSocket;
  resources.memory_size_mib = desired.memoryMib;
  if (desired.bootType !== undefined) resources.boot_config = { ...resources.boot_config, boot_type: desired.bootType };
  if (desired.disks !== undefined) resources.disk_list = mergeDisks(resources.disk_list ?? [], desired.disks);
  resources.nic_list = desired.nics === undefined ? resources.nic_list?.map(connected) : mergeNics(resources.nic_list ?? [], desired.nics);
  return body;
}

function currentAsIntent(current: PrismVm): PrismVmIntent {
  const metadata = structuredClone(current.metadata);
  for (const key of READ_ONLY_METADATA) Reflect.deleteProperty(metadata, key);
  const spec = structuredClone(current.spec);
  // Prism refuses a PUT whose NICs lack is_connected ("Must specify NIC is_connected during update.").
  if (spec.resources.nic_list !== undefined) spec.resources.nic_list = spec.resources.nic_list.map(connected);
  return { metadata, spec };
}

/**
 * Existing data disks matched by position keep everything and grow when asked; CD-ROMs and extra disks stay as they
 * are; desired disks beyond the existing ones are added.
 */
function mergeDisks(have: readonly PrismDisk[], want: readonly DesiredDisk[]): PrismDisk[] {
  let position = 0;
  const merged = have.map((disk) => {
    if (!isDataDisk(disk)) return disk;
    const wanted = want[position];
    position += 1;
    const size = diskSizeMib(disk);
    if (wanted?.sizeMib === undefined || size === undefined || wanted.sizeMib <= size) return disk;
    return { ...disk, disk_size_mib: wanted.sizeMib, disk_size_bytes: wanted.sizeMib * MIB };
  });
  return [...merged, ...want.slice(position).map(v3Disk)];
}

/** NICs matched by position keep their uuid, MAC and addresses unless the subnet changes, which makes a new NIC. */
function mergeNics(have: readonly PrismNic[], want: readonly DesiredNic[]): PrismNic[] {
  return want.map((wanted, index) => {
    const existing = have[index];
    if (existing !== undefined && existing.subnet_reference?.uuid === wanted.subnetUuid) return connected(existing);
    return v3Nic(wanted);
  });
}

function connected(nic: PrismNic): PrismNic {
  return { ...nic, is_connected: nic.is_connected ?? true };
}

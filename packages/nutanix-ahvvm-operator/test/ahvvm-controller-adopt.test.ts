// Adopting a VM the operator did not create (issue 33): only by the uuid in `spec.adopt`, never by name. CAPX has no
// adoption (it finds a VM by the UUID it recorded or by its own name, controllers/nutanixmachine_controller.go
// `FindVM` @v1.10.3); TF users ask for it (terraform-provider-nutanix #565, #713) and name-based taking-over is how
// ANS #275 made a second VM. So the opt-in is explicit, and the existing protections stay: a namesake without the
// opt-in is NameInUse, a VM another AhvVm owns is refused, and an adopted VM that vanished is never re-created.
// Run on both APIs; the VMs to adopt are made in Prism directly, as a person would have made them.

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { waitFor } from '@k8s-operators/testkit';
import { describe, expect, it } from 'vitest';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import { ownerUidOf } from '../src/desired/ownership-marker.ts';
import type { PrismApiVersion } from '../src/vm/prism-vm-api.ts';
import { useOperatorPerSimulator } from './operator-per-simulator.ts';
import { clientFor } from './simulator.ts';

const fixture = useOperatorPerSimulator();

/** A VM made in Prism by hand: 2 sockets, 2 GiB, on the default cluster, no ownership marker. */
async function vmMadeByHand(simulator: PrismSimulator, name: string): Promise<string> {
  const v3 = clientFor(simulator);
  try {
    const [token = ''] = await v3.createIdempotenceIdentifiers(1);
    const created = await v3.createVm({ metadata: { kind: 'vm' }, spec: { name, description: 'made by hand', resources: { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 } } }, { idempotenceUuid: token });
    expect((await v3.waitForTask(created.taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 })).status).toBe('SUCCEEDED');
    return created.uuid;
  } finally {
    await v3.close();
  }
}

const vmsOf = (simulator: PrismSimulator) => simulator.inspect().vms;

describe.each<PrismApiVersion>(['v3', 'v4'])('adopt on %s', (version) => {
  it('takes over the VM spec.adopt names, marks and renames it, never creates one, and deletes it with the resource', async () => {
    const namespace = `adopt-${version}`;
    const simulator = await fixture.setUp(namespace, {}, version);
    const legacy = await vmMadeByHand(simulator, 'legacy-web');
    await fixture.env.apply(namespace, 'web', { adopt: { uuid: legacy.toUpperCase() }, num_sockets: 2, memory_size_mib: 2048, description: 'adopted' });
    const adopted = await fixture.env.waitForCondition(namespace, 'web', 'Ready', 'True', 'Available');
    expect(adopted.status?.uuid).toBe(legacy);
    expect(await fixture.env.eventReasons(namespace, 'web')).toContain('Adopted');
    const [vm, ...others] = vmsOf(simulator);
    expect(others).toEqual([]);
    expect(vm).toMatchObject({ uuid: legacy, name: 'web', numSockets: 2, memorySizeMib: 2048 });
    expect(ownerUidOf(vm?.description)).toBe(adopted.metadata.uid);
    expect(simulator.inspect().createRequests).toBe(1);

    await fixture.env.kube.delete(AhvVmRef, { namespace, name: 'web' });
    await waitFor(async () => (await fixture.env.get(namespace, 'web')) === undefined, { what: 'web to be gone', intervalMs: 50 });
    expect(vmsOf(simulator)).toEqual([]);
  });

  it('reports an adopted VM deleted in Prism, and does not make a new one', async () => {
    const namespace = `adopt-gone-${version}`;
    const simulator = await fixture.setUp(namespace, {}, version);
    const legacy = await vmMadeByHand(simulator, 'legacy-app');
    await fixture.env.apply(namespace, 'app', { adopt: { uuid: legacy }, num_sockets: 2, memory_size_mib: 2048 });
    await fixture.env.waitForCondition(namespace, 'app', 'Ready', 'True', 'Available');
    const v3 = clientFor(simulator);
    try {
      expect((await v3.waitForTask((await v3.deleteVm(legacy)) ?? '', { operation: 'delete', pollIntervalMs: 10 })).status).toBe('SUCCEEDED');
    } finally {
      await v3.close();
    }
    // A spec change makes the operator look at once, rather than at its next drift check.
    await fixture.env.apply(namespace, 'app', { adopt: { uuid: legacy }, num_sockets: 2, memory_size_mib: 3072 });
    const gone = await fixture.env.waitForCondition(namespace, 'app', 'Ready', 'False', 'AdoptedVmNotFound');
    expect(gone.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain('the operator does not create a VM for an AhvVm that adopts one');
    expect(vmsOf(simulator)).toEqual([]);
    expect(simulator.inspect().createRequests).toBe(1);
  });

  it('adopts nothing by name, refuses a VM another AhvVm owns, reports a uuid Prism does not have, and keeps a Retain VM', async () => {
    const namespace = `adopt-refusals-${version}`;
    const simulator = await fixture.setUp(namespace, {}, version);
    const namesake = await vmMadeByHand(simulator, 'db');
    const owned = await vmMadeByHand(simulator, 'owned');
    const missing = '0f0f0f0f-0000-4000-8000-000000000000';

    await fixture.env.apply(namespace, 'db', { num_sockets: 2, memory_size_mib: 2048 });
    await fixture.env.apply(namespace, 'owner', { adopt: { uuid: owned }, num_sockets: 2, memory_size_mib: 2048, deletion_policy: 'Retain' });
    await fixture.env.waitForCondition(namespace, 'owner', 'Ready', 'True', 'Available');
    await fixture.env.apply(namespace, 'thief', { adopt: { uuid: owned }, num_sockets: 2, memory_size_mib: 2048 });
    await fixture.env.apply(namespace, 'ghost', { adopt: { uuid: missing } });

    const byName = await fixture.env.waitForCondition(namespace, 'db', 'Ready', 'False', 'NameInUse');
    expect(byName.status?.uuid).toBeUndefined();
    const thief = await fixture.env.waitForCondition(namespace, 'thief', 'Ready', 'False', 'AdoptionRefused');
    expect(thief.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(`VM ${owned} ("owner") carries the ownership marker of another AhvVm`);
    const ghost = await fixture.env.waitForCondition(namespace, 'ghost', 'Ready', 'False', 'AdoptedVmNotFound');
    expect(ghost.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(`Prism Central has no VM ${missing}`);
    expect(vmsOf(simulator).map((vm) => [vm.uuid, vm.name]).sort()).toEqual([[namesake, 'db'], [owned, 'owner']].sort());
    expect(ownerUidOf(vmsOf(simulator).find((vm) => vm.uuid === namesake)?.description)).toBeUndefined();

    // Retain: the resource goes, the adopted VM stays in Prism.
    await fixture.env.kube.delete(AhvVmRef, { namespace, name: 'owner' });
    await waitFor(async () => (await fixture.env.get(namespace, 'owner')) === undefined, { what: 'owner to be gone', intervalMs: 50 });
    expect(vmsOf(simulator).map((vm) => vm.uuid)).toContain(owned);
    expect(simulator.inspect().createRequests).toBe(2);
  });
});

// The update flow on Prism v4, driven against the simulator as the reconciler drives it: plan from a fresh read, send
// the plan's first step through PrismV4VmApi, wait for its task, read again. A v4 `apply-spec` is one request (the
// VM's configuration, or one disk or NIC), so the same plan is made again until the VM matches — the same end state
// vm-update-flow.test.ts reaches on v3 with one PUT, with what v4 keeps (extIds, MACs, addresses) checked.

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { resolveAhvVmSpec } from '../src/api/resolved-ahvvm-spec.ts';
import { desiredVmSpec, type DesiredVmContext } from '../src/desired/desired-vm.ts';
import { vmExtIdOf, type PrismV4Client } from '../src/prism/v4/prism-v4-client.ts';
import { PrismV4VmApi } from '../src/prism/v4/v4-vm-api.ts';
import { planUpdate } from '../src/vm/update-plan.ts';
import type { DesiredVm, ObservedVm } from '../src/vm/vm-model.ts';
import { desiredVmContextFor, requestsTo, startSimulator, v4ClientFor } from './simulator.ts';

const UID = '0f4c1d2e-3b4f-4c8d-9e0a-1b2c3d4e5f61';
const NAME = 'web-v4';
const VMS = '/api/vmm/v4.2/ahv/config/vms';

/** What the test reads of a v4 NIC beyond the model. */
interface V4Nic {
  extId?: string;
  nicNetworkInfo?: { ipv4Config?: { ipAddress?: { value?: string } } };
}

describe('planning and applying updates on Prism v4', () => {
  let simulator: PrismSimulator;
  let client: PrismV4Client;
  let api: PrismV4VmApi;
  let context: DesiredVmContext;
  let extId = '';

  beforeAll(async () => {
    simulator = await startSimulator();
    client = v4ClientFor(simulator);
    api = new PrismV4VmApi(client);
    context = desiredVmContextFor(simulator);
  });
  afterAll(async () => {
    await client.close();
    await simulator.stop();
  });

  async function desired(spec: AhvVmSpec): Promise<DesiredVm> {
    const result = desiredVmSpec({ metadata: { name: NAME, uid: UID }, spec: resolveAhvVmSpec(spec) }, context);
    if (!result.ok) throw new Error(result.message);
    expect(await api.prepare(result.vm)).toBeUndefined();
    return result.vm;
  }

  async function current(): Promise<ObservedVm> {
    const vm = await api.getVm(extId);
    if (vm === undefined) throw new Error(`VM ${extId} is gone`);
    return vm;
  }

  /** The NICs as v4 shows them, with what the model does not keep per NIC (MAC, addresses). */
  async function v4Nics(): Promise<V4Nic[]> {
    const nics = (await client.getVm(extId))?.vm.nics;
    return Array.isArray(nics) ? (nics as V4Nic[]) : [];
  }

  /**
   * Runs plans to the end as the reconciler does, one step per pass, sent with the VM and the diff its plan was made
   * from; returns the steps and their task outcomes.
   */
  async function converge(wanted: DesiredVm): Promise<string[]> {
    const outcomes: string[] = [];
    for (let pass = 0; pass < 20; pass += 1) {
      const vm = await current();
      const plan = planUpdate(vm, wanted, { consentToPowerCycle: false });
      if (plan.kind === 'in-sync') return outcomes;
      if (plan.kind !== 'steps') throw new Error(`expected steps, got ${JSON.stringify(plan)}`);
      const [step] = plan.steps;
      if (step === undefined) throw new Error('a plan of no steps');
      const task = await client.waitForTask(await api.applyStep(vm, step, wanted, plan.diff), { operation: step.action, pollIntervalMs: 10 });
      outcomes.push(`${step.action}:${task.status}`);
    }
    throw new Error('the VM did not converge in 20 passes');
  }

  const base: AhvVmSpec = {
    num_sockets: 2,
    memory_size_mib: 2048,
    power_state: 'PoweredOn',
    categories: { Environment: 'Dev' },
    disks: [{ image: { name: 'ubuntu-24.04-server-cloudimg' }, size_mib: 8192 }],
    nics: [{ subnet: { name: 'vlan10-ipam' } }, { subnet: { name: 'vlan10-ipam' } }],
  };

  it('creates the VM with its categories and finds it in sync', async () => {
    const wanted = await desired(base);
    const { taskUuid } = await api.createVm(wanted, await api.newCreateToken());
    const task = await client.waitForTask(taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 });
    extId = vmExtIdOf(task) ?? '';
    expect(extId).not.toBe('');
    const vm = await current();
    expect(vm.categories).toEqual({ Environment: 'Dev' });
    expect(planUpdate(vm, wanted, { consentToPowerCycle: false })).toEqual({ kind: 'in-sync' });
  });

  it('makes live disk, NIC and category changes one request at a time, keeping what v4 assigned', async () => {
    const before = await current();
    const nicsBefore = await v4Nics();
    const wanted = await desired({
      ...base,
      categories: { Environment: 'Prod' },
      disks: [{ image: { name: 'ubuntu-24.04-server-cloudimg' }, size_mib: 16384 }, { size_mib: 1024 }],
      nics: [{ subnet: { name: 'vlan10-ipam' } }, { subnet: { name: 'vlan30-ipam' } }, { subnet: { name: 'vlan30-ipam' } }],
    });
    const counts = (): number[] => [
      requestsTo(simulator, 'PUT', `PUT ${VMS}/{extId}` as never),
      requestsTo(simulator, 'PUT', `PUT ${VMS}/{vmExtId}/disks/{extId}` as never),
      requestsTo(simulator, 'POST', `POST ${VMS}/{vmExtId}/disks` as never),
      requestsTo(simulator, 'PUT', `PUT ${VMS}/{vmExtId}/nics/{extId}` as never),
      requestsTo(simulator, 'POST', `POST ${VMS}/{vmExtId}/nics` as never),
    ];
    const start = counts();
    // Categories (a PUT of the VM), the disk grown, a disk added, the second NIC moved, a third NIC added.
    expect(await converge(wanted)).toEqual(Array.from({ length: 5 }, () => 'apply-spec:SUCCEEDED'));
    expect(counts().map((n, i) => n - (start[i] ?? 0))).toEqual([1, 1, 1, 1, 1]);

    const after = await current();
    const subnets = Object.fromEntries(simulator.subnets.map((s) => [s.uuid, s.name]));
    const nicsAfter = await v4Nics();
    expect(after.categories).toEqual({ Environment: 'Prod' });
    expect(after.powerState).toBe('ON');
    expect(after.disks.map((d) => d.sizeMib)).toEqual([16384, 1024]);
    expect(after.disks[0]?.id).toBe(before.disks[0]?.id);
    expect(after.nics.map((n) => subnets[n.subnetUuid ?? ''])).toEqual(['vlan10-ipam', 'vlan30-ipam', 'vlan30-ipam']);
    // The first NIC is untouched; the moved one kept its extId and got an address on its new subnet.
    expect(nicsAfter[0]).toEqual(nicsBefore[0]);
    expect(after.nics[1]?.id).toBe(before.nics[1]?.id);
    expect(nicsAfter[1]?.nicNetworkInfo?.ipv4Config?.ipAddress?.value).toMatch(/^10\.40\.30\./);
  });

  it('removes an extra NIC, and refuses to shrink or remove a disk without sending anything', async () => {
    const wanted = await desired({ ...base, disks: [{ image: { name: 'ubuntu-24.04-server-cloudimg' }, size_mib: 16384 }, { size_mib: 1024 }], nics: [{ subnet: { name: 'vlan10-ipam' } }] });
    const removes = requestsTo(simulator, 'DELETE', `DELETE ${VMS}/{vmExtId}/nics/{extId}` as never);
    expect(await converge(wanted)).toEqual(['apply-spec:SUCCEEDED', 'apply-spec:SUCCEEDED', 'apply-spec:SUCCEEDED']);
    expect(requestsTo(simulator, 'DELETE', `DELETE ${VMS}/{vmExtId}/nics/{extId}` as never) - removes).toBe(2);
    expect((await current()).nics).toHaveLength(1);

    const shrink = planUpdate(await current(), await desired({ ...base, disks: [{ size_mib: 10 }] }), { consentToPowerCycle: true });
    expect(shrink).toMatchObject({ kind: 'blocked', reason: 'UnsupportedChange' });
  });
});

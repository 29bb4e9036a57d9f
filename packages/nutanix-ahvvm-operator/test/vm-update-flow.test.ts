// The pure VM logic and the v3 bodies driven against the simulator, which enforces AHV's hot-plug rules, the
// full-replace PUT and version control: what desiredVmSpec builds is accepted, what planUpdate schedules (on the VM as
// the v3 translation reads it) succeeds, and what it holds back would indeed have failed.

import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { resolveAhvVmSpec } from '../src/api/resolved-ahvvm-spec.ts';
import { findOwnedVm } from '../src/controller/find-owned-vm.ts';
import { desiredVmSpec, withCloudInitUserData, type DesiredVmContext } from '../src/desired/desired-vm.ts';
import { observedVmStatus } from '../src/desired/observed-vm-status.ts';
import { isEditConflict } from '../src/prism/edit-conflict.ts';
import { PrismApiError } from '../src/prism/prism-errors.ts';
import type { PrismClient } from '../src/prism/v3/prism-client.ts';
import type { PrismVm } from '../src/prism/v3/prism-types.ts';
import { applyDesiredToCurrentSpec, putBodyFor } from '../src/prism/v3/v3-put-body.ts';
import { observedVmFromV3 as observed, v3CreateBody, vmTaskFromV3 } from '../src/prism/v3/v3-translation.ts';
import { planUpdate, type UpdatePlan } from '../src/vm/update-plan.ts';
import type { DesiredVm } from '../src/vm/vm-model.ts';
import { clientFor, desiredVmContextFor, startSimulator } from './simulator.ts';

const UID = '5d1e7a2c-3b4f-4c8d-9e0a-1b2c3d4e5f60';
const NAME = 'web-01';
const POLL = { pollIntervalMs: 10 };

describe('planning and applying updates against Prism', () => {
  let simulator: PrismSimulator;
  let client: PrismClient;
  let context: DesiredVmContext;
  let uuid = '';

  beforeAll(async () => {
    simulator = await startSimulator();
    client = clientFor(simulator);
    context = desiredVmContextFor(simulator);
  });
  afterAll(async () => {
    await client.close();
    await simulator.stop();
  });

  function desired(spec: AhvVmSpec): DesiredVm {
    const result = desiredVmSpec({ metadata: { name: NAME, uid: UID }, spec: resolveAhvVmSpec(spec) }, context);
    if (!result.ok) throw new Error(result.message);
    return result.vm;
  }

  async function current(): Promise<PrismVm> {
    const vm = await client.getVm(uuid);
    if (vm === undefined) throw new Error(`VM ${uuid} is gone`);
    return vm;
  }

  /** Runs each step as the reconciler will: a fresh GET, the PUT body built from it, the task awaited. */
  async function run(plan: UpdatePlan, wanted: DesiredVm): Promise<string[]> {
    if (plan.kind !== 'steps') throw new Error(`expected steps, got ${JSON.stringify(plan)}`);
    const outcomes: string[] = [];
    for (const step of plan.steps) {
      const taskUuid = await client.updateVm(uuid, putBodyFor(step, await current(), wanted));
      const task = await client.waitForTask(taskUuid, { operation: step.action, ...POLL });
      outcomes.push(`${step.action}:${task.status}`);
    }
    return outcomes;
  }

  const base: AhvVmSpec = {
    num_sockets: 2,
    num_vcpus_per_socket: 1,
    memory_size_mib: 2048,
    power_state: 'PoweredOn',
    description: 'web tier',
    categories: { Environment: 'Dev' },
    disks: [{ image: { name: 'ubuntu-24.04-server-cloudimg' }, size_mib: 8192 }],
    nics: [{ subnet: { name: 'vlan10-ipam' } }],
    boot_type: 'UEFI',
  };

  it('creates the VM an AhvVm describes, cloud-init included, and then finds it in sync', async () => {
    const withUserData = withCloudInitUserData(desired(base), Buffer.from('#cloud-config\nhostname: web-01\n').toString('base64'));
    if (!withUserData.ok) throw new Error(withUserData.message);
    [uuid = ''] = await client.createIdempotenceIdentifiers(1);
    const created = await client.createVm(v3CreateBody(withUserData.vm), { idempotenceUuid: uuid });
    await expect(client.waitForTask(created.taskUuid ?? '', { operation: 'create', ...POLL })).resolves.toMatchObject({ status: 'SUCCEEDED' });
    const vm = await current();
    expect(observedVmStatus(observed(vm))).toMatchObject({ uuid, state: 'COMPLETE', powerState: 'ON', specVersion: 0 });
    expect(observedVmStatus(observed(vm)).ipAddresses).toHaveLength(1);
    expect(planUpdate(observed(vm), desired(base), { consentToPowerCycle: false })).toEqual({ kind: 'in-sync' });
    expect(findOwnedVm((await client.listVmsByName(NAME)).map(observed), UID, NAME)).toMatchObject({ kind: 'found', vm: { uuid } });
  });

  /** The spec after the live changes below; later steps build on it. */
  const grown: AhvVmSpec = {
    ...base,
    num_sockets: 4,
    memory_size_mib: 4096,
    disks: [{ image: { name: 'ubuntu-24.04-server-cloudimg' }, size_mib: 16384 }, { size_mib: 1024 }],
    nics: [{ subnet: { name: 'vlan10-ipam' } }, { subnet: { name: 'vlan30-ipam' } }],
    categories: { Environment: 'Prod' },
  };
  const twoVcpus: AhvVmSpec = { ...grown, num_vcpus_per_socket: 2 };

  it('applies live changes to the running VM in one PUT', async () => {
    const wanted = desired(grown);
    const before = await current();
    const plan = planUpdate(observed(before), wanted, { consentToPowerCycle: false });
    expect(await run(plan, wanted)).toEqual(['apply-spec:SUCCEEDED']);
    const after = await current();
    expect(planUpdate(observed(after), wanted, { consentToPowerCycle: false })).toEqual({ kind: 'in-sync' });
    expect(after.status.resources).toMatchObject({ power_state: 'ON', num_sockets: 4, memory_size_mib: 4096 });
    // Server-filled values survived the full-replace PUT: the first NIC kept its MAC and address, the disk its uuid.
    expect(after.spec.resources.nic_list?.[0]).toEqual(before.spec.resources.nic_list?.[0]);
    expect(after.spec.resources.disk_list?.[0]?.uuid).toBe(before.spec.resources.disk_list?.[0]?.uuid);
    expect(after.metadata.categories).toEqual({ Environment: 'Prod' });
    expect(after.spec.resources.guest_customization).toEqual(before.spec.resources.guest_customization);
  });

  it('holds back a change the running VM cannot take live, which Prism would indeed refuse', async () => {
    const wanted = desired(twoVcpus);
    const vm = await current();
    expect(planUpdate(observed(vm), wanted, { consentToPowerCycle: false })).toMatchObject({ kind: 'blocked', reason: 'PowerCycleRequired' });

    // Sending it anyway (what the plan prevents) fails the task and leaves the VM in ERROR …
    const taskUuid = await client.updateVm(uuid, applyDesiredToCurrentSpec(vm, wanted));
    const task = await client.waitForTask(taskUuid, { operation: 'update', ...POLL });
    expect(task).toMatchObject({ status: 'FAILED', error_code: '27' });
    expect((await current()).status.state).toBe('ERROR');
  });

  it('power-cycles with consent, which also recovers the VM from ERROR', async () => {
    const wanted = desired(twoVcpus);
    const plan = planUpdate(observed(await current()), wanted, { consentToPowerCycle: true });
    expect(plan).toMatchObject({ kind: 'steps', powerCycle: true });
    expect(await run(plan, wanted)).toEqual(['power-off:SUCCEEDED', 'apply-spec:SUCCEEDED', 'power-on:SUCCEEDED']);
    const vm = await current();
    expect(vm.status).toMatchObject({ state: 'COMPLETE', resources: { power_state: 'ON', num_vcpus_per_socket: 2 } });
    expect(vm.status.message_list).toBeUndefined();
    expect(planUpdate(observed(vm), wanted, { consentToPowerCycle: false })).toEqual({ kind: 'in-sync' });
  });

  it('finishes an interrupted power cycle', async () => {
    const wanted = desired({ ...grown, power_state: undefined, num_vcpus_per_socket: 4 });
    expect(planUpdate(observed(await current()), wanted, { consentToPowerCycle: true })).toMatchObject({ kind: 'steps', powerCycle: true });
    // The operator stops after the power-off …
    const taskUuid = await client.updateVm(uuid, putBodyFor({ action: 'power-off' }, await current(), wanted));
    await client.waitForTask(taskUuid, { operation: 'power-off', ...POLL });
    // … and, restarted with status.powerCycleInProgress, plans the rest.
    const resumed = planUpdate(observed(await current()), wanted, { consentToPowerCycle: true, powerCycleInProgress: true });
    expect(await run(resumed, wanted)).toEqual(['apply-spec:SUCCEEDED', 'power-on:SUCCEEDED']);
    expect(observedVmStatus(observed(await current()))).toMatchObject({ powerState: 'ON', state: 'COMPLETE' });
  });

  it('recognises an edit conflict from a stale spec_version, in both of Prism\'s ways', async () => {
    const stale = await current();
    const described = (description: string): DesiredVm => desired({ ...grown, num_vcpus_per_socket: 4, description });
    const first = await client.updateVm(uuid, applyDesiredToCurrentSpec(stale, described('one')));
    await expect(client.waitForTask(first, { operation: 'update', ...POLL })).resolves.toMatchObject({ status: 'SUCCEEDED' });
    const second = await client.updateVm(uuid, applyDesiredToCurrentSpec(stale, described('two')));
    const task = await client.waitForTask(second, { operation: 'update', ...POLL });
    expect(isEditConflict(vmTaskFromV3(task))).toBe(true);

    const strict = await startSimulator({ editConflicts: 'sync-409' });
    const strictClient = clientFor(strict);
    try {
      const [id = ''] = await strictClient.createIdempotenceIdentifiers(1);
      const created = await strictClient.createVm(v3CreateBody(desired({})), { idempotenceUuid: id });
      await strictClient.waitForTask(created.taskUuid ?? '', { operation: 'create', ...POLL });
      const vm = await strictClient.getVm(id);
      if (vm === undefined) throw new Error('no VM');
      const body = applyDesiredToCurrentSpec(vm, desired({ num_sockets: 2 }));
      await strictClient.waitForTask(await strictClient.updateVm(id, body), { operation: 'update', ...POLL });
      const conflict = await strictClient.updateVm(id, body).catch((error: unknown) => error);
      expect(conflict).toBeInstanceOf(PrismApiError);
      expect(conflict instanceof PrismApiError && conflict.status === 409 && isEditConflict(conflict)).toBe(true);
    } finally {
      await strictClient.close();
      await strict.stop();
    }
  });

  it('refuses to create a namesake of a VM it does not own', async () => {
    const [other = ''] = await client.createIdempotenceIdentifiers(1);
    const created = await client.createVm({ metadata: { kind: 'vm' }, spec: { name: 'taken', resources: {} } }, { idempotenceUuid: other });
    await client.waitForTask(created.taskUuid ?? '', { operation: 'create', ...POLL });
    expect(findOwnedVm((await client.listVmsByName('taken')).map(observed), UID, 'taken')).toMatchObject({ kind: 'ambiguous', reason: 'NameInUse', uuids: [other] });
  });
});

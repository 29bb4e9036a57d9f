// The AhvVm controller on Prism Central's v4 API (VMM v4.2), against a real API server and the simulator over TLS:
// the same behaviours as ahvvm-controller.test.ts (the v3 path), in v4's terms — creates carried by a recorded
// NTNX-Request-Id, the VM's extId from the create task, updates with If-Match, power changes as actions — and what a
// user sees: the VM in Prism, the AhvVm's status and Events, and which requests Prism received.

import { randomUUID } from 'node:crypto';
import { waitFor } from '@k8s-operators/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import type { AhvVm } from '../src/api/ahvvm-resource.ts';
import { FIELD_MANAGER, FINALIZER } from '../src/controller/ahvvm-reconciler.ts';
import { PrismAccessGate } from '../src/controller/prism-access-gate.ts';
import { vmExtIdOf, type PrismV4Client } from '../src/prism/v4/prism-v4-client.ts';
import { descriptionWithOwnerMarker } from '../src/desired/ownership-marker.ts';
import { changeInPrism, env, onlyVm, operatorFor, prism, prismEnv, simulator, useControllerFixture, uuidOf, vmsNamed } from './controller-fixture.ts';
import { requestsTo, v4ClientFor } from './simulator.ts';

const V4_VMS = '/api/vmm/v4.2/ahv/config/vms';
const V4 = {
  create: ['POST', `POST ${V4_VMS}`],
  get: ['GET', `GET ${V4_VMS}/{extId}`],
  list: ['GET', `GET ${V4_VMS}`],
  put: ['PUT', `PUT ${V4_VMS}/{extId}`],
  delete: ['DELETE', `DELETE ${V4_VMS}/{extId}`],
  powerOn: ['POST', `POST ${V4_VMS}/{extId}/$actions/power-on`],
  powerOff: ['POST', `POST ${V4_VMS}/{extId}/$actions/power-off`],
  task: ['GET', 'GET /api/prism/v4.2/config/tasks/{extId}'],
  addDisk: ['POST', `POST ${V4_VMS}/{vmExtId}/disks`],
  growDisk: ['PUT', `PUT ${V4_VMS}/{vmExtId}/disks/{extId}`],
  moveNic: ['PUT', `PUT ${V4_VMS}/{vmExtId}/nics/{extId}`],
  removeNic: ['DELETE', `DELETE ${V4_VMS}/{vmExtId}/nics/{extId}`],
} as const;

// `auto` (the default) must choose v4 on the simulator; the tests say so explicitly where it matters.
useControllerFixture('auto');

/** A v4 client of the tests' own, for what only v4 shows (the create task's request id, extIds). */
let v4: PrismV4Client;
beforeAll(() => {
  v4 = v4ClientFor(simulator);
});
afterAll(() => v4.close());

function count(call: readonly [string, string], outcome?: number): number {
  return requestsTo(simulator, call[0], call[1] as never, outcome);
}

describe('creating and changing VMs through v4', () => {
  const NS = 'v4-lifecycle';
  beforeAll(async () => {
    await env.createNamespace(NS);
    await operatorFor(NS);
  });

  it("creates the seed's VM once with a recorded NTNX-Request-Id, learns its extId from the task, and reports it Ready", async () => {
    const before = { v4: count(V4.create), v3: requestsTo(simulator, 'POST', 'POST /vms'), reservations: requestsTo(simulator, 'POST', 'POST /idempotence_identifiers') };
    await env.apply(NS, 'ahvvm-from-operator', { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 });
    const avm = await env.waitForCondition(NS, 'ahvvm-from-operator', 'Ready', 'True', 'Available');

    const vm = onlyVm('ahvvm-from-operator');
    expect(vm).toMatchObject({ numSockets: 2, numVcpusPerSocket: 1, memorySizeMib: 2048, powerState: 'OFF', clusterUuid: simulator.clusters[0]?.uuid });
    expect(count(V4.create) - before.v4).toBe(1);
    expect(requestsTo(simulator, 'POST', 'POST /vms')).toBe(before.v3);
    expect(requestsTo(simulator, 'POST', 'POST /idempotence_identifiers')).toBe(before.reservations);
    expect(avm.metadata.finalizers).toContain(FINALIZER);
    expect(avm.status).toMatchObject({ uuid: vm.uuid, state: 'COMPLETE', powerState: 'OFF', observedGeneration: 1, lastTask: { operation: 'create', status: 'SUCCEEDED' } });
    expect(avm.status?.createRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(avm.status?.specVersion).toBeUndefined();
    expect(avm.status?.lastTask?.uuid).toMatch(/^ZXJnb24=:/);
    expect((await prism.getVm(vm.uuid))?.spec.description).toBe(descriptionWithOwnerMarker(undefined, avm.metadata.uid ?? ''));
    await waitFor(async () => (await env.eventReasons(NS, 'ahvvm-from-operator')).includes('Created'), { what: 'the Created event' });
  });

  it('grows memory of a running VM live, in one PUT with If-Match', async () => {
    await env.apply(NS, 'web', { power_state: 'PoweredOn', memory_size_mib: 2048 });
    await env.waitForCondition(NS, 'web', 'Ready', 'True');
    const before = onlyVm('web');
    expect(before.powerState).toBe('ON');
    const puts = count(V4.put);
    await env.apply(NS, 'web', { power_state: 'PoweredOn', memory_size_mib: 4096 });
    await env.waitForCondition(NS, 'web', 'Ready', 'True');
    expect(onlyVm('web')).toMatchObject({ uuid: before.uuid, memorySizeMib: 4096, powerState: 'ON' });
    expect(count(V4.put) - puts).toBe(1);
    expect(count(V4.put, 428) + count(V4.put, 412)).toBe(0);
  });

  it('holds back a change that needs a power cycle until allowed, then powers off, applies and powers on by actions', async () => {
    await env.apply(NS, 'cpu-bound', { power_state: 'PoweredOn' });
    await env.waitForCondition(NS, 'cpu-bound', 'Ready', 'True');
    const puts = count(V4.put);
    const offs = count(V4.powerOff);

    await env.apply(NS, 'cpu-bound', { power_state: 'PoweredOn', num_vcpus_per_socket: 2 });
    const blocked = await env.waitForCondition(NS, 'cpu-bound', 'Ready', 'False', 'PowerCycleRequired');
    expect(blocked.status?.conditions?.[0]?.message).toContain('num_vcpus_per_socket 1 → 2');
    expect(onlyVm('cpu-bound')).toMatchObject({ numVcpusPerSocket: 1, powerState: 'ON' });
    expect(count(V4.put)).toBe(puts);
    expect(count(V4.powerOff)).toBe(offs);

    const ons = count(V4.powerOn);
    await env.apply(NS, 'cpu-bound', { power_state: 'PoweredOn', num_vcpus_per_socket: 2, allow_power_cycle: true });
    const done = await env.waitForCondition(NS, 'cpu-bound', 'Ready', 'True');
    expect(onlyVm('cpu-bound')).toMatchObject({ numVcpusPerSocket: 2, powerState: 'ON' });
    expect([count(V4.powerOff) - offs, count(V4.put) - puts, count(V4.powerOn) - ons]).toEqual([1, 1, 1]);
    expect(done.status?.powerCycleInProgress).toBeUndefined();
    expect(await env.eventReasons(NS, 'cpu-bound')).toEqual(expect.arrayContaining(['PowerCycleRequired', 'PoweringOff', 'Updating', 'PoweringOn']));
  });

  it('changes disks and NICs of a running VM live through their v4 endpoints, one request per step, no power cycle', async () => {
    const image = simulator.images[0]?.uuid ?? '';
    const [ipam, otherIpam] = simulator.subnets.filter((subnet) => subnet.ipam);
    const spec = { power_state: 'PoweredOn' as const, disks: [{ image: { uuid: image }, size_mib: 8192 }], nics: [{ subnet: { uuid: ipam?.uuid ?? '' } }, { subnet: { uuid: ipam?.uuid ?? '' } }] };
    await env.apply(NS, 'devices', spec);
    const created = await env.waitForCondition(NS, 'devices', 'Ready', 'True');
    const before = await prism.getVm(uuidOf(created));
    const calls = (): number[] => [V4.put, V4.growDisk, V4.addDisk, V4.moveNic, V4.removeNic, V4.powerOff].map((call) => count(call));
    const start = calls();

    await env.apply(NS, 'devices', { ...spec, disks: [{ image: { uuid: image }, size_mib: 16384 }, { size_mib: 1024 }], nics: [{ subnet: { uuid: otherIpam?.uuid ?? '' } }] });
    const done = await env.waitForCondition(NS, 'devices', 'Ready', 'True');
    const after = await prism.getVm(uuidOf(done));
    expect(after?.spec.resources.disk_list?.filter((d) => d.device_properties?.device_type === 'DISK').map((d) => d.disk_size_mib)).toEqual([16384, 1024]);
    expect(after?.spec.resources.nic_list?.map((n) => n.subnet_reference?.uuid)).toEqual([otherIpam?.uuid]);
    expect(after?.spec.resources.nic_list?.[0]?.mac_address).toBe(before?.spec.resources.nic_list?.[0]?.mac_address);
    expect(after?.spec.resources.power_state).toBe('ON');
    // No PUT of the VM (nothing of its own changed), one request per device change, never powered off.
    expect(calls().map((n, i) => n - (start[i] ?? 0))).toEqual([0, 1, 1, 1, 1, 0]);
    expect(count(V4.growDisk, 412) + count(V4.addDisk, 412) + count(V4.moveNic, 412) + count(V4.removeNic, 412)).toBe(0);
  });

  it('puts categories on a v4 VM as on v3, changes them with a PUT, and reports one Prism does not have', async () => {
    await env.apply(NS, 'labelled', { categories: { Environment: 'Dev' } });
    const avm = await env.waitForCondition(NS, 'labelled', 'Ready', 'True');
    expect(onlyVm('labelled').categoriesMapping).toEqual({ Environment: ['Dev'] });
    expect((await prism.getVm(uuidOf(avm)))?.spec.description).toBe(descriptionWithOwnerMarker(undefined, avm.metadata.uid ?? ''));

    const puts = count(V4.put);
    await env.apply(NS, 'labelled', { categories: { Environment: 'Prod' } });
    await env.waitForCondition(NS, 'labelled', 'Ready', 'True');
    expect(onlyVm('labelled').categoriesMapping).toEqual({ Environment: ['Prod'] });
    expect(count(V4.put) - puts).toBe(1);

    await env.apply(NS, 'unknown-category', { categories: { Environment: 'Mars' } });
    const refused = await env.waitForCondition(NS, 'unknown-category', 'Ready', 'False', 'CategoryNotFound');
    expect(refused.status?.conditions?.[0]?.message).toContain('Environment=Mars');
    expect(vmsNamed('unknown-category')).toEqual([]);
  });
});

describe('drift and deletion outside Kubernetes, through v4', () => {
  const NS = 'v4-drift';
  beforeAll(async () => {
    await env.createNamespace(NS);
    await operatorFor(NS, { intervals: { taskPollMs: 50, driftCheckMs: 300 } });
  });

  it('puts back a change made in Prism', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'drifter', { num_sockets: 2 })).metadata.name ?? '', 'Ready', 'True');
    const uuid = uuidOf(avm);
    await changeInPrism(uuid, (vm) => ({ ...vm.spec, resources: { ...vm.spec.resources, num_sockets: 4 } }));
    await waitFor(async () => (await env.eventReasons(NS, 'drifter')).includes('DriftDetected'), { what: 'DriftDetected' });
    await waitFor(() => onlyVm('drifter').numSockets === 2, { what: 'the drift put back' });
    expect(onlyVm('drifter').uuid).toBe(uuid);
  });

  it('creates a VM deleted in Prism again, with a new request id', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'phoenix', {})).metadata.name ?? '', 'Ready', 'True');
    const first = uuidOf(avm);
    const task = await prism.deleteVm(first);
    await prism.waitForTask(task ?? '', { operation: 'delete', pollIntervalMs: 10 });
    await waitFor(async () => (await env.eventReasons(NS, 'phoenix')).includes('VmDeletedOutOfBand'), { what: 'VmDeletedOutOfBand' });
    const again = await waitFor(async () => {
      const current = await env.get(NS, 'phoenix');
      return current?.status?.uuid !== undefined && current.status.uuid !== first && readyTrue(current) ? current : undefined;
    }, { what: 'the VM created again' });
    expect(again.status?.createRequestId).not.toBe(avm.status?.createRequestId);
    expect(onlyVm('phoenix').uuid).toBe(uuidOf(again));
  });

  it('deletes the VM before letting the AhvVm go', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'short-lived', {})).metadata.name ?? '', 'Ready', 'True');
    const deletes = count(V4.delete);
    await env.kube.delete(AhvVmRef, { namespace: NS, name: 'short-lived' });
    const seen: string[] = [];
    await waitFor(async () => {
      const exists = (await env.get(NS, 'short-lived')) !== undefined;
      seen.push(`${String(exists)}/${String(vmsNamed('short-lived').length > 0)}`);
      return !exists;
    }, { what: 'the AhvVm to be gone', intervalMs: 20 });
    expect(seen).not.toContain('false/true');
    expect(await prism.getVm(uuidOf(avm))).toBeUndefined();
    expect(count(V4.delete) - deletes).toBe(1);
  });
});

function readyTrue(avm: AhvVm): boolean {
  return avm.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true && avm.status.observedGeneration === avm.metadata.generation;
}

describe('never two VMs on v4', () => {
  const NS = 'v4-identity';
  beforeAll(async () => {
    await env.createNamespace(NS);
  });

  /** An AhvVm as an operator that stopped right after recording the request id would have left it. */
  async function recordedBeforeCrash(name: string, createRequestId: string, namespace = NS): Promise<AhvVm> {
    const created = await env.apply(namespace, name, {});
    await env.kube.patch(AhvVmRef, { namespace, name }, { type: 'merge', patch: { metadata: { finalizers: [FINALIZER] } } });
    await env.kube.applyStatus(AhvVmRef, { metadata: { name, namespace }, status: { createRequestId } }, { fieldManager: FIELD_MANAGER, force: true });
    return created;
  }

  it('after a crash between create and its answer: the create still running is asked again with its id, one VM', async () => {
    const [neverSent, stillRunning] = [randomUUID(), randomUUID()];
    await recordedBeforeCrash('v4-never-sent', neverSent);
    const running = await recordedBeforeCrash('v4-still-running', stillRunning);
    // The create that did reach Prism, slow enough that no list shows the VM when the operator comes back.
    simulator.faults.add({ kind: 'slow-task', operation: 'create', extraMs: 2_000, times: 1 });
    const firstTask = await v4.createVm(
      { name: 'v4-still-running', description: descriptionWithOwnerMarker(undefined, running.metadata.uid ?? ''), numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: simulator.clusters[0]?.uuid ?? '' } },
      { requestId: stillRunning },
    );
    const before = simulator.inspect().vms.length;

    await operatorFor(NS);
    const resent = await env.waitForCondition(NS, 'v4-still-running', 'Ready', 'True', undefined, 30_000);
    expect(resent.status?.lastTask?.uuid).toBe(firstTask);
    expect(resent.status?.createRequestId).toBe(stillRunning);
    const created = await v4.waitForTask(firstTask, { operation: 'create', pollIntervalMs: 10 });
    expect(uuidOf(resent)).toBe(vmExtIdOf(created));
    expect(uuidOf(await env.waitForCondition(NS, 'v4-never-sent', 'Ready', 'True'))).toBe(onlyVm('v4-never-sent').uuid);
    expect(onlyVm('v4-still-running').uuid).toBe(uuidOf(resent));
    expect(simulator.inspect().vms.length - before).toBe(1);
  });

  it('deleted while the operator was down with a create unanswered: asks with the request id, and deletes that VM', async () => {
    // A namespace of its own, whose operator starts only after the AhvVm was deleted.
    const down = 'v4-deleted-while-down';
    await env.createNamespace(down);
    const requestId = randomUUID();
    const avm = await recordedBeforeCrash('v4-doomed', requestId, down);
    simulator.faults.add({ kind: 'slow-task', operation: 'create', extraMs: 1_500, times: 1 });
    await v4.createVm(
      { name: 'v4-doomed', description: descriptionWithOwnerMarker(undefined, avm.metadata.uid ?? ''), numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: simulator.clusters[0]?.uuid ?? '' } },
      { requestId },
    );
    await env.kube.delete(AhvVmRef, { namespace: down, name: 'v4-doomed' });
    const deletes = count(V4.delete);
    await operatorFor(down);
    await waitFor(async () => (await env.get(down, 'v4-doomed')) === undefined, { what: 'the AhvVm to be gone', timeoutMs: 30_000 });
    expect(vmsNamed('v4-doomed')).toEqual([]);
    expect(count(V4.delete) - deletes).toBe(1);
  });

  it('adopts a VM whose create finished while the operator was gone, by its ownership marker', async () => {
    // A namespace of its own, whose operator starts only once the create has finished: this describe's operator runs
    // since the first story and would send the recorded create again itself, before the VM exists.
    const gone = 'v4-adopted-while-down';
    await env.createNamespace(gone);
    const requestId = randomUUID();
    const avm = await recordedBeforeCrash('v4-adopted', requestId, gone);
    const task = await v4.createVm(
      { name: 'v4-adopted', description: descriptionWithOwnerMarker(undefined, avm.metadata.uid ?? ''), numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: simulator.clusters[0]?.uuid ?? '' } },
      { requestId },
    );
    const extId = vmExtIdOf(await v4.waitForTask(task, { operation: 'create', pollIntervalMs: 10 }));
    const creates = count(V4.create);
    await operatorFor(gone);
    expect(uuidOf(await env.waitForCondition(gone, 'v4-adopted', 'Ready', 'True'))).toBe(extId);
    expect(count(V4.create)).toBe(creates);
    expect(await env.eventReasons(gone, 'v4-adopted')).toContain('Adopted');
  });

  it('retries a create whose answer was lost with the same id, and one whose task failed with a new id: one VM each', async () => {
    simulator.faults.add({ kind: 'drop', endpoint: `POST ${V4_VMS}` as never, phase: 'after', times: 1 });
    await env.apply(NS, 'v4-lost-answer', {});
    await env.waitForCondition(NS, 'v4-lost-answer', 'Ready', 'True');
    expect(vmsNamed('v4-lost-answer')).toHaveLength(1);

    simulator.faults.add({ kind: 'task-failure', operation: 'create', times: 1 });
    await env.apply(NS, 'v4-unlucky', {});
    const avm = await env.waitForCondition(NS, 'v4-unlucky', 'Ready', 'True');
    expect(onlyVm('v4-unlucky').uuid).toBe(uuidOf(avm));
    expect(await env.eventReasons(NS, 'v4-unlucky')).toContain('TaskFailed');
  });

  it('creates nothing when a VM of the same name exists that it does not own', async () => {
    const task = await v4.createVm({ name: 'v4-taken', numSockets: 1, numCoresPerSocket: 1, memorySizeBytes: 1024 ** 3, cluster: { extId: simulator.clusters[0]?.uuid ?? '' } }, { requestId: randomUUID() });
    await v4.waitForTask(task, { operation: 'create', pollIntervalMs: 10 });
    const creates = count(V4.create);
    await env.apply(NS, 'v4-taken', {});
    const avm = await env.waitForCondition(NS, 'v4-taken', 'Ready', 'False', 'NameInUse');
    expect(avm.status?.uuid).toBeUndefined();
    expect(count(V4.create)).toBe(creates);
    expect(vmsNamed('v4-taken')).toHaveLength(1);
  });
});

describe('v4 under faults', () => {
  it('converges, changes and deletes six AhvVms through 429s, 5xx, dropped connections, slow and failed tasks: no VM or disk twice, none left', async () => {
    const NS = 'v4-faults';
    await env.createNamespace(NS);
    await operatorFor(NS);
    for (const endpoint of [`POST ${V4_VMS}`, `GET ${V4_VMS}/{extId}`, `PUT ${V4_VMS}/{extId}`, V4.addDisk[1], 'GET /api/prism/v4.2/config/tasks/{extId}', `GET ${V4_VMS}`]) {
      simulator.faults.add({ kind: 'rate-limit', endpoint: endpoint as never, retryAfterSeconds: 1, probability: 0.15 });
      simulator.faults.add({ kind: 'error', endpoint: endpoint as never, status: 503, probability: 0.1 });
    }
    simulator.faults.add({ kind: 'drop', endpoint: `POST ${V4_VMS}` as never, phase: 'after', times: 2 });
    // A disk added whose answer is lost: the next plan must not add a second one.
    simulator.faults.add({ kind: 'drop', endpoint: V4.addDisk[1] as never, phase: 'after', times: 2 });
    simulator.faults.add({ kind: 'slow-task', extraMs: 300, probability: 0.3 });
    simulator.faults.add({ kind: 'task-failure', operation: 'create', times: 1 });
    const names = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5'];
    for (const name of names) await env.apply(NS, name, { power_state: 'PoweredOn' });
    for (const name of names) await env.waitForCondition(NS, name, 'Ready', 'True', undefined, 90_000);
    for (const name of names) await env.apply(NS, name, { power_state: 'PoweredOn', memory_size_mib: 2048, disks: [{ size_mib: 1024 }] });
    for (const name of names) await env.waitForCondition(NS, name, 'Ready', 'True', undefined, 90_000);
    for (const name of names) {
      const vm = onlyVm(name);
      expect(vm).toMatchObject({ memorySizeMib: 2048, powerState: 'ON' });
      const disks = (await prism.getVm(vm.uuid))?.spec.resources.disk_list?.filter((d) => d.device_properties?.device_type === 'DISK');
      expect(disks?.map((d) => d.disk_size_mib), `the data disks of ${name}`).toEqual([1024]);
    }
    expect(requestsTo(simulator, 'POST', V4.addDisk[1] as never, 'dropped')).toBe(2);
    for (const name of names) await env.kube.delete(AhvVmRef, { namespace: NS, name });
    await waitFor(async () => (await env.kube.list(AhvVmRef, { namespace: NS })).items.length === 0, { what: 'every AhvVm gone', timeoutMs: 90_000 });
    for (const name of names) expect(vmsNamed(name)).toEqual([]);
    expect(count(V4.create, 429) + count(V4.get, 429) + count(V4.task, 429) + count(V4.create, 503) + count(V4.get, 503)).toBeGreaterThan(0);
  }, 240_000);
});

describe('when v4 cannot be used', () => {
  it('reports wrong credentials (refused by the auto probe) on every resource after one refused login', async () => {
    const NS = 'v4-wrong-password';
    await env.createNamespace(NS);
    const refusedBefore = count(V4.list, 401);
    const gate = new PrismAccessGate({ initialDelayMs: 600_000 });
    await operatorFor(NS, { env: prismEnv({ PRISM_PASS: 'wrong' }), gate, maxConcurrentReconciles: 1 });
    for (const name of ['a', 'b', 'c']) await env.apply(NS, name, {});
    for (const name of ['a', 'b', 'c']) await env.waitForCondition(NS, name, 'Ready', 'False', 'AuthenticationFailed');
    expect(count(V4.list, 401) - refusedBefore).toBe(1);
  });

  it('refuses a certificate it was not given the CA of, on v4 too', async () => {
    const NS = 'v4-untrusted';
    await env.createNamespace(NS);
    await operatorFor(NS, { env: prismEnv({ PRISM_API_VERSION: 'v4', PRISM_CA_CERT: undefined }) });
    await env.apply(NS, 'untrusted', {});
    await env.waitForCondition(NS, 'untrusted', 'Ready', 'False', 'TLSVerificationFailed');
    expect(vmsNamed('untrusted')).toEqual([]);
  });
});

// The AhvVm controller against a real API server and the Prism simulator over TLS, run in-process so that tests can
// stop and restart it, change its settings and look at its metrics. What a user would see is asserted: the VM in
// Prism, the AhvVm's status and Events, and how many requests Prism received.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isConflict, Resources, StatusWriter } from '@k8s-operators/controller-core';
import { waitFor } from '@k8s-operators/testkit';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import type { AhvVm, AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { CRD_FILES } from '../src/api/crd-files.ts';
import { FIELD_MANAGER, FINALIZER } from '../src/controller/ahvvm-reconciler.ts';
import { PrismAccessGate } from '../src/controller/prism-access-gate.ts';
import { withPowerState } from '../src/prism/v3/v3-put-body.ts';
import { descriptionWithOwnerMarker } from '../src/desired/ownership-marker.ts';
import { changeInPrism, env, onlyVm, operatorFor, prism, prismEnv, prismVm, simulator, stopOperator, useControllerFixture, uuidOf, vmsNamed } from './controller-fixture.ts';
import { requestsTo } from './simulator.ts';

// This file is the v3 path (the v4 path: ahvvm-controller-v4.test.ts); `auto` would pick v4 on the simulator.
useControllerFixture('v3');

describe('creating and changing VMs', () => {
  const NS = 'lifecycle';
  beforeAll(async () => {
    await env.createNamespace(NS);
    await operatorFor(NS);
  });

  it("creates the seed's VM once, records it and reports it Ready", async () => {
    const postsBefore = simulator.inspect().createRequests;
    await env.apply(NS, 'ahvvm-from-operator', { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 });
    const avm = await env.waitForCondition(NS, 'ahvvm-from-operator', 'Ready', 'True', 'Available');

    const vm = onlyVm('ahvvm-from-operator');
    expect(vm).toMatchObject({ numSockets: 2, numVcpusPerSocket: 1, memorySizeMib: 2048, powerState: 'OFF', clusterUuid: simulator.clusters[0]?.uuid });
    expect(simulator.inspect().createRequests - postsBefore).toBe(1);
    expect(avm.metadata.finalizers).toContain(FINALIZER);
    expect(avm.status).toMatchObject({
      uuid: vm.uuid,
      state: 'COMPLETE',
      powerState: 'OFF',
      specVersion: 0,
      observedGeneration: 1,
      lastTask: { operation: 'create', status: 'SUCCEEDED' },
    });
    expect(avm.status?.conditions?.find((c) => c.type === 'Synced')).toMatchObject({ status: 'True', reason: 'ReconcileSuccess' });
    // The ownership marker, for finding the VM should status ever be lost.
    expect((await prismVm(vm.uuid)).spec.description).toBe(descriptionWithOwnerMarker(undefined, avm.metadata.uid ?? ''));
    await waitFor(async () => (await env.eventReasons(NS, 'ahvvm-from-operator')).includes('Created'), { what: 'the Created event' });
  });

  it('builds the sample with every field: names resolved, disks, NIC, categories, UEFI, power and cloud-init', async () => {
    const [secret, sample] = parseAllDocuments(await readFile(join(CRD_FILES.directory, '../samples/ahvvm-web-01.yaml'), 'utf8')).map((d) => d.toJSON() as { metadata: { name: string }; spec: AhvVmSpec; stringData: Record<string, string> });
    if (secret === undefined || sample === undefined) throw new Error('the sample has a Secret and an AhvVm');
    await env.kube.create(Resources.Secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret.metadata.name, namespace: NS }, stringData: secret.stringData });
    await env.apply(NS, sample.metadata.name, sample.spec);
    const avm = await env.waitForCondition(NS, 'web-01', 'Ready', 'True');

    const vm = await prismVm(uuidOf(avm));
    const image = simulator.images.find((i) => i.name === 'ubuntu-24.04-server-cloudimg');
    const subnet = simulator.subnets.find((s) => s.name === 'vlan10-ipam');
    const { resources } = vm.spec;
    expect(resources).toMatchObject({ num_sockets: 2, num_vcpus_per_socket: 2, memory_size_mib: 4096, power_state: 'ON', boot_config: { boot_type: 'UEFI' } });
    expect(resources.disk_list?.filter((d) => d.device_properties?.device_type === 'DISK').map((d) => [d.data_source_reference?.uuid, d.disk_size_mib])).toEqual([[image?.uuid, 20480], [undefined, 10240]]);
    expect(resources.nic_list?.map((n) => n.subnet_reference?.uuid)).toEqual([subnet?.uuid]);
    expect(vm.metadata.categories).toEqual({ Environment: 'Dev' });
    expect(vm.spec.description).toMatch(/^Web tier, managed from Kubernetes\nnutanix\.com\/ahvvm-owner-uid: /);
    expect(resources.guest_customization?.cloud_init?.user_data).toBe(Buffer.from(secret.stringData.userdata ?? '').toString('base64'));
    expect(avm.status).toMatchObject({ powerState: 'ON', ipAddresses: [expect.stringMatching(/^10\.40\.10\./) as unknown] });
  });

  it('reports the address DHCP gives a running VM on a subnet without IPAM', async () => {
    await env.apply(NS, 'dhcp', { power_state: 'PoweredOn', nics: [{ subnet: { name: 'vlan20-dhcp' } }] });
    await env.waitForCondition(NS, 'dhcp', 'Ready', 'True');
    await waitFor(async () => (await env.get(NS, 'dhcp'))?.status?.ipAddresses?.[0]?.startsWith('192.168.20.'), { what: 'the learned address in status' });
  });

  it('grows memory of a running VM live: one PUT, no power cycle', async () => {
    const before = onlyVm('web-01');
    const putsBefore = requestsTo(simulator, 'PUT', 'PUT /vms/{uuid}');
    await env.kube.patch(AhvVmRef, { namespace: NS, name: 'web-01' }, { type: 'merge', patch: { spec: { memory_size_mib: 8192 } } });
    await env.waitForCondition(NS, 'web-01', 'Ready', 'True');
    const after = onlyVm('web-01');
    expect(after).toMatchObject({ uuid: before.uuid, memorySizeMib: 8192, powerState: 'ON', specVersion: before.specVersion + 1 });
    expect(requestsTo(simulator, 'PUT', 'PUT /vms/{uuid}') - putsBefore).toBe(1);
  });

  it('holds back a change that needs a power cycle until allowed, then cycles the VM and starts it again', async () => {
    await env.apply(NS, 'cpu-bound', { power_state: 'PoweredOn' });
    await env.waitForCondition(NS, 'cpu-bound', 'Ready', 'True');
    const running = onlyVm('cpu-bound');
    const putsBefore = requestsTo(simulator, 'PUT', 'PUT /vms/{uuid}');

    await env.apply(NS, 'cpu-bound', { power_state: 'PoweredOn', num_vcpus_per_socket: 2 });
    const blocked = await env.waitForCondition(NS, 'cpu-bound', 'Ready', 'False', 'PowerCycleRequired');
    expect(blocked.status?.conditions?.[0]?.message).toContain('num_vcpus_per_socket 1 → 2');
    expect(blocked.status?.conditions?.find((c) => c.type === 'Synced')?.status).toBe('True');
    expect(onlyVm('cpu-bound')).toMatchObject({ numVcpusPerSocket: 1, powerState: 'ON', specVersion: running.specVersion });
    expect(requestsTo(simulator, 'PUT', 'PUT /vms/{uuid}')).toBe(putsBefore);

    await env.apply(NS, 'cpu-bound', { power_state: 'PoweredOn', num_vcpus_per_socket: 2, allow_power_cycle: true });
    const done = await env.waitForCondition(NS, 'cpu-bound', 'Ready', 'True');
    expect(onlyVm('cpu-bound')).toMatchObject({ numVcpusPerSocket: 2, powerState: 'ON', specVersion: running.specVersion + 3 });
    expect(done.status?.powerCycleInProgress).toBeUndefined();
    const reasons = await env.eventReasons(NS, 'cpu-bound');
    expect(reasons).toEqual(expect.arrayContaining(['PowerCycleRequired', 'PoweringOff', 'Updating', 'PoweringOn']));
  });
});

describe('finding VMs again and never making two', () => {
  const NS = 'identity';
  beforeAll(async () => {
    await env.createNamespace(NS);
  });

  /** An AhvVm as an operator that stopped right after recording the UUID would have left it. */
  async function recordedBeforeCrash(name: string, uuid: string): Promise<AhvVm> {
    const created = await env.apply(NS, name, {});
    await env.kube.patch(AhvVmRef, { namespace: NS, name }, { type: 'merge', patch: { metadata: { finalizers: [FINALIZER] } } });
    return env.kube.applyStatus(AhvVmRef, { metadata: { name, namespace: NS }, status: { uuid } }, { fieldManager: FIELD_MANAGER, force: true }).then(() => created);
  }

  it('sends a POST that never reached Prism again with the recorded UUID, and adopts a VM whose answer was lost', async () => {
    const [neverSent = '', answerLost = ''] = await prism.createIdempotenceIdentifiers(2);
    await recordedBeforeCrash('never-sent', neverSent);
    const lost = await recordedBeforeCrash('answer-lost', answerLost);
    // The POST that did arrive: the VM exists under the recorded UUID, marked as the resource's.
    const created = await prism.createVm(
      { metadata: { kind: 'vm' }, spec: { name: 'answer-lost', description: descriptionWithOwnerMarker(undefined, lost.metadata.uid ?? ''), resources: { num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024 } } },
      { idempotenceUuid: answerLost },
    );
    await prism.waitForTask(created.taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 });
    const postsBefore = simulator.inspect().createRequests;

    await operatorFor(NS);
    expect(uuidOf(await env.waitForCondition(NS, 'never-sent', 'Ready', 'True'))).toBe(neverSent);
    expect(uuidOf(await env.waitForCondition(NS, 'answer-lost', 'Ready', 'True'))).toBe(answerLost);
    expect(onlyVm('never-sent').uuid).toBe(neverSent);
    expect(onlyVm('answer-lost').uuid).toBe(answerLost);
    expect(simulator.inspect().createRequests - postsBefore).toBe(1);
  });

  it('retries a create whose task failed with a new UUID, leaving one VM', async () => {
    simulator.faults.add({ kind: 'task-failure', operation: 'create', times: 1 });
    const postsBefore = simulator.inspect().createRequests;
    await env.apply(NS, 'unlucky', {});
    const avm = await env.waitForCondition(NS, 'unlucky', 'Ready', 'True');
    expect(onlyVm('unlucky').uuid).toBe(uuidOf(avm));
    expect(simulator.inspect().createRequests - postsBefore).toBe(2);
    expect(await env.eventReasons(NS, 'unlucky')).toContain('TaskFailed');
  });

  it('creates nothing when a VM of the same name exists that it does not own', async () => {
    const [uuid = ''] = await prism.createIdempotenceIdentifiers(1);
    const created = await prism.createVm({ metadata: { kind: 'vm' }, spec: { name: 'taken', resources: {} } }, { idempotenceUuid: uuid });
    await prism.waitForTask(created.taskUuid ?? '', { operation: 'create', pollIntervalMs: 10 });
    const postsBefore = simulator.inspect().createRequests;
    await env.apply(NS, 'taken', {});
    const avm = await env.waitForCondition(NS, 'taken', 'Ready', 'False', 'NameInUse');
    expect(avm.status?.conditions?.[0]?.message).toContain(uuid);
    expect(avm.status?.uuid).toBeUndefined();
    expect(simulator.inspect().createRequests).toBe(postsBefore);
    expect(vmsNamed('taken')).toHaveLength(1);
  });

  it('refuses a status write based on an outdated read, so a stale cache cannot lose the recorded UUID', async () => {
    // A namespace no operator watches: only this test writes.
    await env.createNamespace('fence');
    const stale = await env.apply('fence', 'fenced', {});
    const writer = new StatusWriter(env.kube, { fieldManager: 'fence-test' });
    await writer.write(AhvVmRef, stale, { uuid: '11111111-1111-4111-8111-111111111111' }, { fenced: true });
    const error = await writer.write(AhvVmRef, stale, { uuid: '22222222-2222-4222-8222-222222222222' }, { fenced: true }).catch((e: unknown) => e);
    expect(isConflict(error)).toBe(true);
    expect((await env.get('fence', 'fenced'))?.status?.uuid).toBe('11111111-1111-4111-8111-111111111111');
  });
});

describe('changes and deletions made in Prism', () => {
  const NS = 'drift';
  beforeAll(async () => {
    await env.createNamespace(NS);
    await operatorFor(NS, { intervals: { taskPollMs: 50, driftCheckMs: 300 } });
  });

  it('puts back a change made in Prism, and says so', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'drifting', { memory_size_mib: 2048 })).metadata.name ?? '', 'Ready', 'True');
    await changeInPrism(uuidOf(avm), (vm) => ({ ...vm.spec, resources: { ...vm.spec.resources, memory_size_mib: 4096 } }));
    expect(onlyVm('drifting').memorySizeMib).toBe(4096);
    await waitFor(() => onlyVm('drifting').memorySizeMib === 2048 && onlyVm('drifting').state === 'COMPLETE', { what: 'memory to be put back' });
    expect(await env.eventReasons(NS, 'drifting')).toContain('DriftDetected');
  });

  it('reports a VM deleted in Prism and creates it again', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'deleted-behind', {})).metadata.name ?? '', 'Ready', 'True');
    const first = uuidOf(avm);
    const task = await prism.deleteVm(first);
    await prism.waitForTask(task ?? '', { operation: 'delete', pollIntervalMs: 10 });
    const again = await waitFor(async () => {
      const current = await env.get(NS, 'deleted-behind');
      return current?.status?.uuid !== first && current?.status?.conditions?.[0]?.status === 'True' ? current : undefined;
    }, { what: 'the VM to be created again' });
    expect(onlyVm('deleted-behind').uuid).toBe(uuidOf(again));
    expect(await env.eventReasons(NS, 'deleted-behind')).toContain('VmDeletedOutOfBand');
  });

  it('clears an ERROR state left by a failed change made in Prism', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'errored', {})).metadata.name ?? '', 'Ready', 'True');
    simulator.faults.add({ kind: 'task-failure', operation: 'update', times: 1 });
    const vm = await prismVm(uuidOf(avm));
    const task = await prism.updateVm(vm.metadata.uuid, withPowerState(vm, 'OFF'));
    expect((await prism.waitForTask(task, { operation: 'update', pollIntervalMs: 10 })).status).toBe('FAILED');
    await waitFor(() => onlyVm('errored').state === 'COMPLETE' && onlyVm('errored').specVersion > (vm.metadata.spec_version ?? 0), { what: 'ERROR to be cleared' });
    await env.waitForCondition(NS, 'errored', 'Ready', 'True');
  });
});

describe('deleting', () => {
  const NS = 'deletion';
  beforeAll(async () => {
    await env.createNamespace(NS);
    await operatorFor(NS);
  });

  it('deletes the VM in Prism before it lets the resource go', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'short-lived', {})).metadata.name ?? '', 'Ready', 'True');
    await env.kube.delete(AhvVmRef, { namespace: NS, name: 'short-lived' });
    const seen: string[] = [];
    await waitFor(async () => {
      const exists = (await env.get(NS, 'short-lived')) !== undefined;
      const vmExists = vmsNamed('short-lived').length > 0;
      seen.push(`${String(exists)}/${String(vmExists)}`);
      return !exists;
    }, { what: 'the AhvVm to be gone', intervalMs: 20 });
    // Never the resource gone while the VM was still there.
    expect(seen).not.toContain('false/true');
    expect(vmsNamed('short-lived')).toEqual([]);
    expect(await prism.getVm(uuidOf(avm))).toBeUndefined();
  });

  it('leaves the VM in Prism with deletion_policy Retain', async () => {
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'kept', { deletion_policy: 'Retain' })).metadata.name ?? '', 'Ready', 'True');
    await env.kube.delete(AhvVmRef, { namespace: NS, name: 'kept' });
    await waitFor(async () => (await env.get(NS, 'kept')) === undefined, { what: 'the AhvVm to be gone' });
    expect(onlyVm('kept').uuid).toBe(uuidOf(avm));
  });
});

describe('when Prism cannot be used', () => {
  it('reports wrong credentials on every resource after a single refused login', async () => {
    const NS = 'wrong-password';
    await env.createNamespace(NS);
    const refusedBefore = requestsTo(simulator, 'POST', 'POST /vms/list', 401) + requestsTo(simulator, 'GET', 'GET /vms/{uuid}', 401);
    // A gate that stays closed for the whole test: no second attempt may happen while it runs.
    const gate = new PrismAccessGate({ initialDelayMs: 600_000 });
    await operatorFor(NS, { env: prismEnv({ PRISM_PASS: 'wrong' }), gate, maxConcurrentReconciles: 1 });
    for (const name of ['a', 'b', 'c']) await env.apply(NS, name, {});
    for (const name of ['a', 'b', 'c']) {
      const avm = await env.waitForCondition(NS, name, 'Ready', 'False', 'AuthenticationFailed');
      expect(avm.status?.conditions?.[0]?.message).toContain('refused the credentials of user "admin"');
      expect(avm.status?.conditions?.[0]?.message).not.toContain('wrong');
    }
    const refused = requestsTo(simulator, 'POST', 'POST /vms/list', 401) + requestsTo(simulator, 'GET', 'GET /vms/{uuid}', 401) - refusedBefore;
    expect(refused).toBe(1);
  });

  it('refuses a certificate it was not given the CA of', async () => {
    const NS = 'untrusted';
    await env.createNamespace(NS);
    await operatorFor(NS, { env: prismEnv({ PRISM_CA_CERT: undefined }) });
    await env.apply(NS, 'untrusted', {});
    const avm = await env.waitForCondition(NS, 'untrusted', 'Ready', 'False', 'TLSVerificationFailed');
    expect(avm.status?.conditions?.[0]?.message).toContain('set PRISM_CA_CERT');
    expect(vmsNamed('untrusted')).toEqual([]);
  });

  it('reports an incomplete configuration without crashing, and does not hold deletions', async () => {
    const NS = 'unconfigured';
    await env.createNamespace(NS);
    const operator = await operatorFor(NS, { env: prismEnv({ PRISM_HOST: undefined, PRISM_PASS: undefined }) });
    expect(operator.prism.configured).toBe(false);
    await env.apply(NS, 'waiting', {});
    const avm = await env.waitForCondition(NS, 'waiting', 'Ready', 'False', 'ConfigurationError');
    expect(avm.status?.conditions?.[0]?.message).toMatch(/PRISM_HOST is not set[\s\S]*PRISM_PASS is not set/);
    expect(avm.metadata.finalizers ?? []).toEqual([]);
    await env.kube.delete(AhvVmRef, { namespace: NS, name: 'waiting' });
    await waitFor(async () => (await env.get(NS, 'waiting')) === undefined, { what: 'the AhvVm to be deleted' });
  });
});

describe('the recorded power cycle', () => {
  it('is finished by the next operator when the previous one stopped half-way, and the VM ends up running', async () => {
    const NS = 'power-cycle';
    await env.createNamespace(NS);
    const first = await operatorFor(NS);
    // Power is not managed by this AhvVm: only status.powerCycleInProgress tells that the operator switched it off.
    const avm = await env.waitForCondition(NS, (await env.apply(NS, 'cycled', {})).metadata.name ?? '', 'Ready', 'True');
    const uuid = uuidOf(avm);
    await changeInPrism(uuid, (vm) => ({ ...vm.spec, resources: { ...vm.spec.resources, power_state: 'ON' } }));
    await env.waitForCondition(NS, 'cycled', 'Ready', 'True');

    // The power-off task runs long enough for the operator to be stopped while it does.
    simulator.faults.add({ kind: 'slow-task', operation: 'update', extraMs: 1_500, times: 1 });
    await env.apply(NS, 'cycled', { num_vcpus_per_socket: 2, allow_power_cycle: true });
    await waitFor(async () => (await env.get(NS, 'cycled'))?.status?.lastTask?.operation === 'power-off', { what: 'the power-off to be sent', intervalMs: 10 });
    await stopOperator(first);
    expect((await env.get(NS, 'cycled'))?.status?.powerCycleInProgress).toBe(true);
    await waitFor(() => onlyVm('cycled').powerState === 'OFF' && onlyVm('cycled').state === 'COMPLETE', { what: 'the VM to be off' });

    await operatorFor(NS);
    const done = await env.waitForCondition(NS, 'cycled', 'Ready', 'True');
    expect(onlyVm('cycled')).toMatchObject({ numVcpusPerSocket: 2, powerState: 'ON' });
    expect(done.status?.powerCycleInProgress).toBeUndefined();
  });
});

// End to end, with only a kubeconfig and kubectl: create the prism-central Secret, install with `kubectl apply -k
// deploy/nutanix-ahvvm-operator`, then drive AhvVms the way a user does and check what Prism Central shows. Runs
// against testkit's local cluster with a Prism simulator started here (npm test), and against kind with the simulator
// kind/e2e.sh runs (E2E_KUBECONFIG, E2E_PRISM_URL, E2E_PRISM_CA_FILE). The same spec runs on a v3-only Prism Central
// with the operator on v3 (E2E_PRISM_API=v3, the default), and on a v4-only one with the operator on v4 (v4) or left to
// find v4 itself (auto): see prism-under-test.ts. The simulator's cluster has GPUs and two storage containers
// (prism-simulator.json), so the GPU sample and a data disk on a named container are checked on each.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFailed, test } from 'vitest';
import { describeOperatorChecks, openE2eCluster, REPOSITORY_ROOT, waitFor, waitForCrdsEstablished, type E2eCluster } from '@k8s-operators/testkit';
import { DEFAULT_PROJECTS, REQUEST_LOG_LIMIT, type FaultRule, type InspectedVm, type LoggedRequest } from '@k8s-operators/prism-simulator';
import { REQUEUE_BACKOFFS } from '../../src/controller/requeue-timing.ts';
import { prismUnderTest, type PrismByHand, type PrismUnderTest, type ShownVm } from './prism-under-test.ts';

const NS = 'nutanix-e2e';
const OPERATOR_NS = 'nutanix-ahvvm-operator-system';
const DEPLOYMENT = 'deployment/nutanix-ahvvm-operator-controller-manager';
const SAMPLES = join(REPOSITORY_ROOT, 'deploy/nutanix-ahvvm-operator/samples');
/** The simulator's project `default`, which the project sample names. */
const DEFAULT_PROJECT_UUID = DEFAULT_PROJECTS.find((project) => project.name === 'default')?.uuid;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let cluster: E2eCluster;
let prism: PrismUnderTest;

beforeAll(async () => {
  [prism, cluster] = await Promise.all([prismUnderTest(), openE2eCluster()]);
  // The Secret first, in the namespace the install will use, as the install instructions say.
  await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NS } }) });
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'prism-central', namespace: OPERATOR_NS }, type: 'Opaque', stringData: prism.secretData() };
  // Replaced, not applied over an earlier run's (kind): apply keeps a data key that this run's stringData leaves out.
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'delete', 'secret', 'prism-central', '--ignore-not-found']);
  await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(secret) });
  await cluster.installer.install('nutanix-ahvvm-operator');
  await waitForCrdsEstablished((args) => cluster.kubectlOk(args), ['ahvvms.nutanix.com']);
  // On a cluster an earlier run installed into (kind), the operator still runs with that run's Secret: restart it.
  if (cluster.kind === 'external') await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'restart', DEPLOYMENT]);
  await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', DEPLOYMENT, '--timeout=180s']);
  await cluster.freshNamespace(NS);
}, 300_000);

afterAll(async () => {
  await cluster.close();
  await prism.stop();
});

/** On failure, show what the person on call would look at first, and what Prism holds. */
function diagnoseOnFailure(): void {
  onTestFailed(async () => {
    const logs = await cluster.kubectl(['-n', OPERATOR_NS, 'logs', DEPLOYMENT, '--tail=80']);
    const events = await cluster.kubectl(['-n', NS, 'get', 'events', '--sort-by=.lastTimestamp']);
    const objects = await cluster.kubectl(['-n', NS, 'get', 'ahvvms', '-o', 'wide']);
    const vms = (await prism.inspect().catch(() => undefined))?.vms.map((vm) => `${vm.name} ${vm.uuid} ${vm.phase} ${vm.state} ${vm.powerState ?? ''}`).join('\n');
    console.error(`--- operator logs\n${logs.stdout}${logs.stderr}\n--- events\n${events.stdout}\n--- ahvvms\n${objects.stdout}\n--- Prism VMs\n${vms ?? '(no answer)'}`);
  });
}

const apply = (manifest: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'apply', '-f', '-'], { input: manifest });
const jsonpath = (resource: string, path: string): Promise<string> => cluster.kubectlOk(['-n', NS, 'get', resource, '-o', `jsonpath=${path}`]);
const patchSpec = (name: string, spec: Record<string, unknown>): Promise<string> =>
  cluster.kubectlOk(['-n', NS, 'patch', 'ahvvm', name, '--type=merge', '-p', JSON.stringify({ spec })]);

/** Whether the AhvVm has caught up with its spec and its Ready condition has `status` (and `reason`). */
async function readyNow(name: string, status: 'True' | 'False' = 'True', reason?: string): Promise<boolean> {
  const avm = JSON.parse(await cluster.kubectlOk(['-n', NS, 'get', 'ahvvm', name, '-o', 'json'])) as {
    metadata: { generation: number };
    status?: { observedGeneration?: number; conditions?: { type: string; status: string; reason: string }[] };
  };
  const ready = avm.status?.conditions?.find((c) => c.type === 'Ready');
  return avm.status?.observedGeneration === avm.metadata.generation && ready?.status === status && (reason === undefined || ready.reason === reason);
}

/** Waits until readyNow. */
async function waitForReady(name: string, status: 'True' | 'False' = 'True', reason?: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(() => readyNow(name, status, reason), { what: `AhvVm ${name} Ready=${status}${reason === undefined ? '' : ` (${reason})`}`, timeoutMs, intervalMs: 250 });
}

async function vmsNamed(name: string): Promise<InspectedVm[]> {
  return (await prism.inspect()).vms.filter((vm) => vm.name === name);
}

async function onlyVm(name: string): Promise<InspectedVm> {
  const vms = await vmsNamed(name);
  expect(vms.map((vm) => vm.uuid), `VMs named ${name}`).toHaveLength(1);
  const [vm] = vms;
  if (vm === undefined) throw new Error('unreachable');
  return vm;
}

/** The VM as a person checks it in Prism, through the API Prism Central serves. */
async function shownVm(uuid: string): Promise<ShownVm | undefined> {
  const byHand = prism.byHand();
  try {
    return await byHand.showVm(uuid);
  } finally {
    await byHand.close();
  }
}

async function createRequests(): Promise<number> {
  return (await prism.inspect()).createRequests;
}

/** Creates Prism accepted (202), on the API in use. */
async function acceptedCreates(): Promise<number> {
  return (await prism.inspect()).requests.filter((r) => r.endpoint === prism.endpoints.createVm && r.outcome === 202).reduce((sum, r) => sum + r.count, 0);
}

test('the operator runs as installed: from its image', async () => {
  expect(await cluster.containerRuntimes(OPERATOR_NS, 'control-plane=controller-manager')).toEqual([cluster.imageRuntime]);
});

describe('the seed sample', () => {
  test('creates the VM the seed asked for and reports it Ready', async () => {
    diagnoseOnFailure();
    // The seed article's manifest, unchanged.
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', `${SAMPLES}/ahvvm-from-operator.yaml`]);
    await waitForReady('ahvvm-from-operator');
    const vm = await onlyVm('ahvvm-from-operator');
    expect(vm).toMatchObject({ numSockets: 2, numVcpusPerSocket: 1, memorySizeMib: 2048, powerState: 'OFF', state: 'COMPLETE', clusterUuid: prism.clusterUuid });
    expect(await jsonpath('ahvvm/ahvvm-from-operator', '{.status.uuid}')).toBe(vm.uuid);
    // The seed's columns, then ours.
    const [header = '', row = ''] = (await cluster.kubectlOk(['-n', NS, 'get', 'avm', 'ahvvm-from-operator'])).trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'SOCKETS', 'VCPUSPERSOCKET', 'MEMORY', 'POWER', 'IP', 'READY', 'AGE']);
    expect(row.split(/\s+/).slice(0, 5)).toEqual(['ahvvm-from-operator', '2', '1', '2048', 'OFF']);
    expect(row).toMatch(/\sTrue\s/);
  });

  test('grows memory of the running VM live, without powering it off', async () => {
    diagnoseOnFailure();
    await patchSpec('ahvvm-from-operator', { power_state: 'PoweredOn' });
    await waitForReady('ahvvm-from-operator');
    const running = await onlyVm('ahvvm-from-operator');
    expect(running.powerState).toBe('ON');

    await patchSpec('ahvvm-from-operator', { memory_size_mib: 4096 });
    await waitForReady('ahvvm-from-operator');
    // One accepted change (a power cycle would have been three), and the VM ON throughout.
    expect(await onlyVm('ahvvm-from-operator')).toMatchObject({ uuid: running.uuid, memorySizeMib: 4096, powerState: 'ON', specVersion: running.specVersion + 1 });
  });

  test('holds back a vCPU-per-socket change until a power cycle is allowed, then applies it', async () => {
    diagnoseOnFailure();
    const before = await onlyVm('ahvvm-from-operator');
    await patchSpec('ahvvm-from-operator', { num_vcpus_per_socket: 2 });
    await waitForReady('ahvvm-from-operator', 'False', 'PowerCycleRequired');
    expect(await jsonpath('ahvvm/ahvvm-from-operator', '{.status.conditions[?(@.type=="Ready")].message}')).toContain('allow_power_cycle');
    expect(await onlyVm('ahvvm-from-operator')).toMatchObject({ numVcpusPerSocket: 1, powerState: 'ON', specVersion: before.specVersion });

    await patchSpec('ahvvm-from-operator', { allow_power_cycle: true });
    await waitForReady('ahvvm-from-operator');
    expect(await onlyVm('ahvvm-from-operator')).toMatchObject({ numVcpusPerSocket: 2, memorySizeMib: 4096, powerState: 'ON', specVersion: before.specVersion + 3 });
  });

  test('deleting the AhvVm deletes the VM first, then the AhvVm goes', async () => {
    diagnoseOnFailure();
    await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'ahvvm-from-operator', '--wait=false']);
    const seen: string[] = [];
    await waitFor(async () => {
      const resource = (await cluster.kubectl(['-n', NS, 'get', 'ahvvm', 'ahvvm-from-operator'])).code === 0;
      const vm = (await vmsNamed('ahvvm-from-operator')).length > 0;
      seen.push(`resource=${String(resource)} vm=${String(vm)}`);
      return !resource;
    }, { what: 'the AhvVm to be gone', timeoutMs: 120_000, intervalMs: 100 });
    expect(seen).not.toContain('resource=false vm=true');
    expect(await vmsNamed('ahvvm-from-operator')).toEqual([]);
  });
});

describe('the sample with every field', () => {
  test('resolves image and subnet names, reads cloud-init from the Secret and starts the VM with an address', async () => {
    diagnoseOnFailure();
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', `${SAMPLES}/ahvvm-web-01.yaml`]);
    await waitForReady('web-01');
    // On v4 the category is found through the v4 categories API and carried by extId: the same VM as on v3.
    expect(await onlyVm('web-01')).toMatchObject({ numSockets: 2, numVcpusPerSocket: 2, memorySizeMib: 4096, powerState: 'ON', categories: { Environment: 'Dev' } });
    expect(await jsonpath('ahvvm/web-01', '{.status.ipAddresses[0]}')).toMatch(/^10\.40\.10\.\d+$/);
  });
});

describe('the GPU sample, and a data disk on a named storage container', () => {
  test('the GPU sample\'s VM has a free A16 passed through and an A16-4Q vGPU', async () => {
    diagnoseOnFailure();
    // The sample unchanged: the GPU by name, the other by device id, as the cluster's inventory lists them.
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', `${SAMPLES}/ahvvm-gpu.yaml`]);
    await waitForReady('inference-01');
    const vm = await onlyVm('inference-01');
    expect(vm).toMatchObject({ numSockets: 4, memorySizeMib: 16384, clusterUuid: prism.clusterUuid });
    expect((await shownVm(vm.uuid))?.gpus).toEqual([{ deviceId: 8629, mode: 'PASSTHROUGH_COMPUTE' }, { deviceId: 1101, mode: 'VIRTUAL' }]);
    await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'inference-01']);
    expect(await vmsNamed('inference-01')).toEqual([]);
  });

  test('the image lookup sample\'s data disk is on the storage container it names, not the cluster\'s first', async () => {
    diagnoseOnFailure();
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', `${SAMPLES}/ahvvm-image-lookup.yaml`]);
    await waitForReady('db-01');
    const vm = await onlyVm('db-01');
    // The boot disk lands on the cluster's first container (default-container-68425); the data disk on the one named.
    expect((await shownVm(vm.uuid))?.diskContainerUuids).toEqual([prism.storageContainers['default-container-68425'], prism.storageContainers.SelfServiceContainer]);
    await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'db-01']);
    expect(await vmsNamed('db-01')).toEqual([]);
  });
});

describe('a project, and a VM adopted by its uuid', () => {
  test('the project sample\'s VM is in its project; on v4 only, a project by name is refused with NotSupportedByPrismApi and one by uuid works', async () => {
    diagnoseOnFailure();
    await cluster.kubectlOk(['-n', NS, 'apply', '-f', `${SAMPLES}/ahvvm-in-project.yaml`]);
    if (prism.api === 'v4') {
      // A project is found by name through v3 only, as CAPX does; this Prism Central has none. The sample says to
      // give the uuid instead, and so does the condition.
      await waitForReady('team-vm-01', 'False', 'NotSupportedByPrismApi');
      expect(await jsonpath('ahvvm/team-vm-01', '{.status.conditions[?(@.type=="Ready")].message}')).toContain('serves no v3 API (404), which is where a project is found by name');
      expect(await vmsNamed('team-vm-01')).toEqual([]);
      await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'team-vm-01']);
      await apply(`apiVersion: nutanix.com/v1alpha1\nkind: AhvVm\nmetadata: {name: team-vm-01}\nspec: {memory_size_mib: 4096, project: {uuid: ${DEFAULT_PROJECT_UUID}}}\n`);
    }
    await waitForReady('team-vm-01');
    expect((await shownVm((await onlyVm('team-vm-01')).uuid))?.projectUuid).toBe(DEFAULT_PROJECT_UUID);
    await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'team-vm-01']);
    expect(await vmsNamed('team-vm-01')).toEqual([]);
  });

  test('a VM made in Prism is taken over only with adopt, then managed and deleted with its AhvVm', async () => {
    diagnoseOnFailure();
    const byHand = prism.byHand();
    const handMade = await byHand.createVm('legacy-app', 2048).finally(() => byHand.close());
    // Its name alone takes nothing over.
    await apply('apiVersion: nutanix.com/v1alpha1\nkind: AhvVm\nmetadata: {name: legacy-app}\nspec: {memory_size_mib: 2048}\n');
    await waitForReady('legacy-app', 'False', 'NameInUse');
    await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'legacy-app']);
    expect((await onlyVm('legacy-app')).uuid).toBe(handMade);

    const postsBefore = await createRequests();
    await apply(`apiVersion: nutanix.com/v1alpha1\nkind: AhvVm\nmetadata: {name: app-01}\nspec: {adopt: {uuid: ${handMade}}, memory_size_mib: 4096}\n`);
    await waitForReady('app-01');
    expect(await jsonpath('ahvvm/app-01', '{.status.uuid}')).toBe(handMade);
    expect(await onlyVm('app-01')).toMatchObject({ uuid: handMade, memorySizeMib: 4096 });
    expect(await vmsNamed('legacy-app')).toEqual([]);
    expect(await createRequests()).toBe(postsBefore);

    await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', 'app-01']);
    expect((await prism.inspect()).vms.filter((vm) => vm.uuid === handMade)).toEqual([]);
  });
});

describe('never a second VM', () => {
  test('an operator killed between its create request and recording the answer leaves exactly one VM', async () => {
    diagnoseOnFailure();
    // Prism holds the next create request for a while, as a slow Prism would: time to kill the operator meanwhile.
    await prism.setFaults(1, [{ kind: 'latency', endpoint: prism.endpoints.createVm, latencyMs: 10_000, times: 1 }]);
    const [postsBefore, acceptedBefore] = [await createRequests(), await acceptedCreates()];
    await apply('apiVersion: nutanix.com/v1alpha1\nkind: AhvVm\nmetadata: {name: survivor}\nspec: {memory_size_mib: 2048}\n');
    // The one-shot rule disappears when the POST reaches Prism: the request is in flight from here on.
    await waitFor(async () => (await prism.faults()).length === 0, { what: 'the create request to reach Prism', intervalMs: 20 });
    // v3: the idempotence UUID the VM will have; v4: the NTNX-Request-Id of the create.
    const recordedAt = prism.api === 'v3' ? '{.status.uuid}' : '{.status.createRequestId}';
    const recorded = await jsonpath('ahvvm/survivor', recordedAt);
    expect(recorded, 'the create token is recorded before the create request is sent').toMatch(UUID);
    expect(await vmsNamed('survivor')).toEqual([]);

    const pod = await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pods', '-l', 'control-plane=controller-manager', '-o', 'jsonpath={.items[0].metadata.name}']);
    await cluster.kubectlOk(['-n', OPERATOR_NS, 'delete', 'pod', pod, '--grace-period=0', '--force']);
    await waitFor(async () => (await cluster.kubectlOk(['-n', OPERATOR_NS, 'get', 'pods', '-l', 'control-plane=controller-manager', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').some((p) => p !== '' && p !== pod), { what: 'a new operator Pod' });
    await cluster.kubectlOk(['-n', OPERATOR_NS, 'rollout', 'status', DEPLOYMENT, '--timeout=180s']);
    await waitForReady('survivor', 'True', undefined, 180_000);

    // The held request is over by now (it ends long before the new operator gets the lease). Whether it created the VM
    // and the new operator found it by the recorded token, or it died with its client and the new operator sent the
    // same token again: one VM, made by the token recorded before the kill.
    await waitFor(async () => (await createRequests()) > postsBefore, { what: 'the held create request to be answered' });
    const vm = await onlyVm('survivor');
    expect(await jsonpath('ahvvm/survivor', '{.status.uuid}')).toBe(vm.uuid);
    expect(await jsonpath('ahvvm/survivor', recordedAt)).toBe(recorded);
    if (prism.api === 'v3') {
      expect(vm.uuid).toBe(recorded);
      expect(await acceptedCreates()).toBe(acceptedBefore + 1);
    } else {
      // A v4 create sent again with its NTNX-Request-Id is answered 202 with the first task, and makes nothing.
      expect(await acceptedCreates()).toBeGreaterThan(acceptedBefore);
    }
  }, 300_000);

  test('under 429s, 5xx, dropped connections, slow and failed tasks and edit conflicts, no AhvVm is duplicated or leaked, and once Prism recovers every one converges within the longest back-off', async () => {
    diagnoseOnFailure();
    const names = Array.from({ length: 6 }, (_, i) => `flaky-${String(i)}`);
    const ours = async (): Promise<InspectedVm[]> => (await prism.inspect()).vms.filter((vm) => names.includes(vm.name));
    // Someone else editing the same VMs in Prism: PUTs of their unchanged spec move spec_version on, so the
    // operator's changes meet stale versions (edit conflicts) and VMs busy with another task.
    const meddler = startMeddler(prism.byHand(), ours);
    try {
      await prism.setFaults(42, storm(prism.endpoints));
      await apply(names.map((name) => `apiVersion: nutanix.com/v1alpha1\nkind: AhvVm\nmetadata: {name: ${name}}\nspec: {power_state: PoweredOn}\n`).join('---\n'));
      await weatherStorm('created', () => allReady(names));
      for (const name of names) await patchSpec(name, { memory_size_mib: 2048, num_sockets: 2 });
      await weatherStorm('resized', () => allReady(names));
      await meddler.stop();
      await prism.setFaults(1, []);
      await waitFor(() => allReady(names), { what: 'every AhvVm Ready once Prism recovered', timeoutMs: RECOVERY_MS, intervalMs: 500 });
      const vms = await ours();
      expect(vms.map((vm) => vm.name).sort()).toEqual(names);
      for (const vm of vms) expect(vm, vm.name).toMatchObject({ memorySizeMib: 2048, numSockets: 2 });

      // Deleting, under the same faults.
      await prism.setFaults(43, storm(prism.endpoints));
      await cluster.kubectlOk(['-n', NS, 'delete', 'ahvvm', ...names, '--wait=false']);
      await weatherStorm('deleted', () => noneLeft(names));
      await prism.setFaults(1, []);
      await waitFor(() => noneLeft(names), { what: 'the AhvVms to be gone once Prism recovered', timeoutMs: RECOVERY_MS, intervalMs: 500 });
    } finally {
      await meddler.stop();
      await prism.setFaults(1, []);
    }
    // The faults did happen.
    const seen = await prism.inspect();
    for (const outcome of [429, 503, 500, 'dropped'] as const) expect(seen.requests.some((r) => r.outcome === outcome), String(outcome)).toBe(true);
    expect(seen.tasks.FAILED ?? 0).toBeGreaterThan(0);
    expect(await ours()).toEqual([]);
  }, 4 * STORM_MS + 2 * RECOVERY_MS + 120_000);
});

/**
 * The storm: every kind of fault at once, drawn at random from a seeded generator (the order in which the operator,
 * the meddler and the test send requests decides which request draws which number, so no two runs see the same faults).
 */
const storm = (endpoints: PrismUnderTest['endpoints']): FaultRule[] => [
  { kind: 'rate-limit', retryAfterSeconds: 1, probability: 0.1 },
  { kind: 'error', status: 503, probability: 0.1 },
  // Prism did the work, the answer is lost: the creates and updates that tempt a client to do them twice.
  { kind: 'error', status: 500, phase: 'after', endpoint: endpoints.createVm, probability: 0.3 },
  { kind: 'drop', phase: 'after', endpoint: endpoints.createVm, probability: 0.2 },
  { kind: 'drop', phase: 'after', endpoint: endpoints.updateVm, probability: 0.2 },
  { kind: 'drop', probability: 0.05 },
  { kind: 'latency', latencyMs: 300, probability: 0.2 },
  { kind: 'slow-task', extraMs: 1_000, probability: 0.3 },
  { kind: 'task-failure', probability: 0.15 },
];
/**
 * How long a step may take under the storm before Prism recovers. Usually all six converge in well under a minute; but a
 * change meets a failed request or task about 4 times in 10, each failure doubles the AhvVm's back-off (1 s to 5 min,
 * by design: a Prism that keeps failing is not hammered), and a VM that drew nine failures in a row (about 3 in 10,000)
 * waits about 4 minutes for its tenth try. Convergence under random faults has no bound; what the operator does promise
 * is that it tries again within its longest back-off, so that is what is asserted once the faults stop.
 */
const STORM_MS = 120_000;
/** The longest Prism back-off with its jitter, then a task and the status write after it. */
const RECOVERY_MS = REQUEUE_BACKOFFS.prism.maxDelayMs * (1 + REQUEUE_BACKOFFS.prism.jitter) + 30_000;

/** Waits for `done` while the storm lasts; whether it converged in that time is only told, not asserted (see STORM_MS). */
async function weatherStorm(what: string, done: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  const converged = await waitFor(async () => (await done()) || undefined, { what, timeoutMs: STORM_MS, intervalMs: 500 }).then(() => true, () => false);
  console.log(converged ? `under the storm, every AhvVm ${what} in ${String(Date.now() - started)} ms` : `under the storm, not every AhvVm ${what} within ${String(STORM_MS)} ms; Prism recovers now`);
}

async function allReady(names: readonly string[]): Promise<boolean> {
  for (const name of names) if (!(await readyNow(name))) return false;
  return true;
}

async function noneLeft(names: readonly string[]): Promise<boolean> {
  return (await cluster.kubectlOk(['-n', NS, 'get', 'ahvvm', '-o', 'name'])).split('\n').every((line) => !names.some((n) => line.endsWith(`/${n}`)));
}

test('every request went to the API this Prism Central serves, but the project name looked up through v3 on v4, as CAPX does', async () => {
  const log = await prism.requestLog();
  expect(log.length, 'the log holds the whole run').toBeLessThan(REQUEST_LOG_LIMIT);
  // A project by name is found through v3 also on v4 (CAPX v1.10.3 does so): here the project sample's, answered 404.
  const projectByName = ({ method, path }: LoggedRequest): boolean => prism.api === 'v4' && method === 'POST' && path === '/api/nutanix/v3/projects/list';
  const offApi = log
    .filter((r) => r.endpoint === 'unknown' || (r.path.startsWith('/api/nutanix/v3/') ? 'v3' : 'v4') !== prism.api)
    .filter((r) => !projectByName(r))
    .map(({ method, path, outcome }) => `${method} ${path} ${String(outcome)}`);
  expect(offApi, `requests beside ${prism.api} on a Prism Central serving ${prism.api} only, PRISM_API_VERSION ${prism.mode}`).toEqual([]);
  expect(log.filter((r) => r.endpoint === prism.endpoints.createVm).length).toBeGreaterThan(0);
  expect(log.some(projectByName)).toBe(prism.api === 'v4');
});

/** PUTs of a VM's own spec, one VM after another, until stopped; its failures (faults hit it too) do not matter. */
function startMeddler(byHand: PrismByHand, vms: () => Promise<InspectedVm[]>): { stop(): Promise<void> } {
  const meddling = { stopped: false };
  const loop = (async () => {
    for (let round = 0; !meddling.stopped; round++) {
      const candidates = (await vms().catch(() => [])).filter((vm) => vm.phase === 'ready');
      const target = candidates[round % Math.max(candidates.length, 1)];
      if (target !== undefined) await byHand.resaveVm(target.uuid).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      meddling.stopped = true;
      stopped ??= loop.then(() => byHand.close());
      return stopped;
    },
  };
}

describeOperatorChecks({
  cluster: () => cluster,
  operator: 'nutanix-ahvvm-operator',
  ownCounter: 'prism_requests_total',
  mayBeUnused: {
    'patch events.events.k8s.io': 'repeats fold into an EventSeries by PATCH at most every 30 s; this run may not wait for one',
  },
});

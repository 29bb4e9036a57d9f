// AhvVms created, resized, power-cycled and deleted through Prism Central (the simulator), first on v3 and, from half
// the run on, on v4 (the operator's Secret switched and the operator restarted, as an upgrade would). The simulator's
// own inventory is sampled every few seconds, independently of the operator.
import type { PrismSimulator } from '@k8s-operators/prism-simulator';
import type { SoakCluster } from '../cluster/soak-cluster.ts';
import { OPERATOR_DEPLOYMENT, operatorNamespace } from '../install.ts';
import { repeat } from '../loop.ts';
import type { Random } from '../random.ts';
import type { Recorder } from '../recorder.ts';
import type { AhvVmRecord, PrismVm } from '../timeline.ts';

export const NUTANIX_NAMESPACE = 'soak-nutanix';
const MIN_VMS = 2;
const MAX_VMS = 5;
/** The marker the operator writes as the last line of a VM's description; read here as a user of Prism would. */
const OWNER_MARKER = /^nutanix\.com\/ahvvm-owner-uid: (\S+)$/gm;

export function prismVms(prism: PrismSimulator): PrismVm[] {
  return prism.inspect().vms.map((vm) => {
    const owner = [...(vm.description ?? '').matchAll(OWNER_MARKER)].at(-1)?.[1];
    return { uuid: vm.uuid, name: vm.name, ...(owner === undefined ? {} : { ownerUid: owner }) };
  });
}

export interface NutanixWorkload {
  prepare(): Promise<void>;
  /** One action: create, resize, power-cycle or delete an AhvVm. */
  act(): Promise<void>;
  /** Samples the simulator's inventory until the signal aborts. */
  sample(signal: AbortSignal): Promise<void>;
  /** The switch to v4: the Secret loses PRISM_API_VERSION=v3 and the operator restarts. */
  switchToV4(): Promise<void>;
  counts(): Record<string, number>;
}

export function nutanixWorkload(cluster: SoakCluster, prism: PrismSimulator, recorder: Recorder, random: Random, onError: (what: string, error: unknown) => void): NutanixWorkload {
  const counts = { 'AhvVms created': 0, 'AhvVm resizes': 0, 'AhvVm power cycles': 0, 'AhvVms deleted': 0 };
  let api: 'v3' | 'v4' = 'v3';
  let created = 0;
  const live = (): AhvVmRecord[] => recorder.ahvVms.filter((vm) => vm.deletedAt === undefined);
  const patch = (vm: AhvVmRecord, spec: Record<string, unknown>): Promise<string> =>
    cluster.kubectlOk(['-n', NUTANIX_NAMESPACE, 'patch', 'ahvvm', vm.name, '--type=merge', '-p', JSON.stringify({ spec })]);

  async function create(): Promise<void> {
    const name = `vm-${String(created++)}`;
    const manifest = { apiVersion: 'nutanix.com/v1alpha1', kind: 'AhvVm', metadata: { name, namespace: NUTANIX_NAMESPACE }, spec: { num_sockets: 1, num_vcpus_per_socket: 1, memory_size_mib: 1024, power_state: 'PoweredOn' } };
    await cluster.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
    const uid = await cluster.kubectlOk(['-n', NUTANIX_NAMESPACE, 'get', 'ahvvm', name, '-o', 'jsonpath={.metadata.uid}']);
    recorder.ahvVms.push({ namespace: NUTANIX_NAMESPACE, name, uid, api, createdAt: Date.now() });
    counts['AhvVms created']++;
  }

  async function remove(vm: AhvVmRecord): Promise<void> {
    await cluster.kubectlOk(['-n', NUTANIX_NAMESPACE, 'delete', 'ahvvm', vm.name, '--wait=false']);
    vm.deletedAt = Date.now();
    counts['AhvVms deleted']++;
  }

  return {
    counts: () => ({ ...counts }),
    async prepare() {
      await cluster.kubectlOk(['create', 'namespace', NUTANIX_NAMESPACE]);
      for (let i = 0; i < MIN_VMS; i++) await create();
    },
    async act() {
      const vms = live();
      const choice = vms.length < MIN_VMS ? 'create' : vms.length >= MAX_VMS ? 'delete' : random.pick(['create', 'resize', 'resize', 'power', 'delete'] as const);
      const vm = random.pick(vms.length > 0 ? vms : [undefined]);
      if (choice === 'create' || vm === undefined) {
        await create();
      } else if (choice === 'resize') {
        await patch(vm, { memory_size_mib: random.pick([1024, 2048, 3072]), num_sockets: random.int(1, 2) });
        counts['AhvVm resizes']++;
      } else if (choice === 'power') {
        await patch(vm, { power_state: 'PoweredOff' });
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        await patch(vm, { power_state: 'PoweredOn' });
        counts['AhvVm power cycles']++;
      } else {
        await remove(vm);
      }
    },
    async sample(signal) {
      const gone = watchGone(cluster, recorder, signal, onError);
      await Promise.all([gone, repeat(signal, 3_000, () => {
        recorder.prismInventory.push({ at: Date.now(), vms: prismVms(prism) });
        return Promise.resolve();
      }, (error) => { onError('sampling the Prism inventory', error); })]);
    },
    async switchToV4() {
      // Without PRISM_API_VERSION the operator's default, auto, finds that this Prism Central serves VMM v4.2.
      await cluster.kubectlOk(['-n', operatorNamespace('nutanix-ahvvm-operator'), 'patch', 'secret', 'prism-central', '--type=json', '-p', '[{"op":"remove","path":"/data/PRISM_API_VERSION"}]']);
      await cluster.kubectlOk(['-n', operatorNamespace('nutanix-ahvvm-operator'), 'rollout', 'restart', `deployment/${OPERATOR_DEPLOYMENT['nutanix-ahvvm-operator']}`]);
      api = 'v4';
    },
  };
}

/** Marks each deleted AhvVm gone when the API server no longer has it (its finalizer ran). */
async function watchGone(cluster: SoakCluster, recorder: Recorder, signal: AbortSignal, onError: (what: string, error: unknown) => void): Promise<void> {
  await repeat(signal, 2_000, async () => {
    const names = new Set((await cluster.kubectlOk(['-n', NUTANIX_NAMESPACE, 'get', 'ahvvms', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean));
    for (const vm of recorder.ahvVms) {
      if (vm.deletedAt !== undefined && vm.goneAt === undefined && !names.has(vm.name)) vm.goneAt = Date.now();
    }
  }, (error) => { onError('looking for deleted AhvVms', error); });
}

// The `nutanix` benchmark: `npm run bench -- nutanix [--vms N] [--request-latency-ms L] [--task-ms T] [--workers W]
// [--prism-concurrency C] [--prism-api v3|v4|auto] [--spec references|seed]`.
//
// On a local control plane (no node: the controller runs in this process, as in production but without a Pod), N
// AhvVms are created in bulk, then the AhvVm controller starts against a Prism simulator that takes L ms per request
// and T ms per task. Measured from controller start until every AhvVm is Ready, then from deleting them all until
// the last is gone: time, Prism requests per VM, peak concurrent Prism requests, and VMs duplicated or left behind,
// and how far the time is above its floor: with C requests at once of L ms each, R requests take at least R × L / C.
// `--spec references` (the default) names a cluster, an image and a subnet, so each API's own lookups are measured
// (by name, once per name: the operator caches them); `--spec seed` is the seed's sample, sizes only.
// Prints progress and, as the last line, one JSON object. It never fails on a number.
import { parseArgs } from 'node:util';
import { isStatusConditionTrue } from '@k8s-operators/controller-core';
import { startPrismSimulator, type PrismSimulator } from '@k8s-operators/prism-simulator';
import { waitFor } from '@k8s-operators/testkit';
import { AhvVmRef } from '../src/api/ahvvm-ref.ts';
import type { AhvVmSpec } from '../src/api/ahvvm-resource.ts';
import { OperatorTestEnvironment, prismEnvFor, type RunningOperator } from '../test/operator-harness.ts';

const NAMESPACE = 'bench';
/** Creates and deletes in flight during the bulk phases (kubectl-like clients, not the operator). */
const BULK_CONCURRENCY = 32;
const PROGRESS_INTERVAL_MS = 5_000;
const SAMPLE_INTERVAL_MS = 20;

interface Flags {
  vms: number;
  requestLatencyMs: number;
  taskMs: number;
  workers: number;
  prismConcurrency: number;
  /** The operator's --prism-api-version; auto (its default) chooses v4 on the simulator. */
  prismApi: 'v3' | 'v4' | 'auto';
  spec: 'seed' | 'references';
}

/** What each AhvVm asks for: sizes only (the seed's sample), or with the references a real VM has, by name. */
const BENCH_SPECS: Record<Flags['spec'], AhvVmSpec> = {
  seed: { num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048 },
  // The simulator's default inventory (prism-simulator's inventory.ts), as the samples name it. The subnet is the DHCP
  // one: an IPAM subnet's /24 holds 253 addresses, and VM 254's create task fails with "No free IP address left", as
  // on a real Prism Central.
  references: {
    num_sockets: 2, num_vcpus_per_socket: 1, memory_size_mib: 2048,
    cluster: { name: 'sim-cluster-01' },
    disks: [{ image: { name: 'ubuntu-24.04-server-cloudimg' }, size_mib: 20480 }],
    nics: [{ subnet: { name: 'vlan20-dhcp' } }],
  },
};

function parseFlags(args: string[]): Flags {
  const { values } = parseArgs({
    args,
    options: {
      vms: { type: 'string', default: '500' },
      'request-latency-ms': { type: 'string', default: '100' },
      'task-ms': { type: 'string', default: '2000' },
      workers: { type: 'string', default: '10' },
      'prism-concurrency': { type: 'string', default: '8' },
      'prism-api': { type: 'string', default: 'auto' },
      spec: { type: 'string', default: 'references' },
    },
  });
  const integer = (flag: string, value: string, min: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${String(min)}, got ${JSON.stringify(value)}`);
    return n;
  };
  const prismApi = values['prism-api'];
  if (prismApi !== 'v3' && prismApi !== 'v4' && prismApi !== 'auto') throw new Error(`--prism-api must be v3, v4 or auto, got ${JSON.stringify(prismApi)}`);
  const spec = values.spec;
  if (spec !== 'references' && spec !== 'seed') throw new Error(`--spec must be references or seed, got ${JSON.stringify(spec)}`);
  return {
    prismApi,
    spec,
    vms: integer('vms', values.vms, 1),
    requestLatencyMs: integer('request-latency-ms', values['request-latency-ms'], 0),
    taskMs: integer('task-ms', values['task-ms'], 0),
    workers: integer('workers', values.workers, 1),
    prismConcurrency: integer('prism-concurrency', values['prism-concurrency'], 1),
  };
}

/** Runs `work` over `items` with at most `concurrency` at once. */
async function inBulk<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let item = items[next++]; item !== undefined; item = items[next++]) await work(item);
  }));
}

function totalRequests(simulator: PrismSimulator): number {
  return simulator.inspect().requests.reduce((sum, r) => sum + r.count, 0);
}

/** Requests by `METHOD endpoint` and outcome, since `before`. */
function requestsSince(simulator: PrismSimulator, before: Map<string, number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of simulator.inspect().requests) {
    const key = `${r.endpoint} ${String(r.outcome)}`;
    const count = r.count - (before.get(key) ?? 0);
    if (count > 0) counts[key] = count;
  }
  return counts;
}

function requestSnapshot(simulator: PrismSimulator): Map<string, number> {
  return new Map(simulator.inspect().requests.map((r) => [`${r.endpoint} ${String(r.outcome)}`, r.count]));
}

/** VMs beyond one per name: a duplicate is a VM the operator created twice. */
function duplicateVms(simulator: PrismSimulator): number {
  const names = simulator.inspect().vms.map((vm) => vm.name);
  return names.length - new Set(names).size;
}

/** The most Prism requests in flight at once, sampled, from start() to stop(). */
class ConcurrencySampler {
  peak = 0;
  readonly #simulator: PrismSimulator;
  #timer: NodeJS.Timeout | undefined;
  constructor(simulator: PrismSimulator) {
    this.#simulator = simulator;
  }
  start(): void {
    this.#timer = setInterval(() => { this.peak = Math.max(this.peak, this.#simulator.inspect().inFlightRequests); }, SAMPLE_INTERVAL_MS);
  }
  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * The request-concurrency floor of a phase: `requests` of `requestLatencyMs` each, `prismConcurrency` at once, take at
 * least requests × latency / concurrency; `timesFloor` is how many times that the phase took.
 */
function aboveFloor(seconds: number, requests: number, flags: Flags): { floorSeconds: number; timesFloor: number } {
  const floorSeconds = (requests * flags.requestLatencyMs) / 1000 / flags.prismConcurrency;
  return { floorSeconds: Math.round(floorSeconds * 100) / 100, timesFloor: floorSeconds === 0 ? 0 : Math.round((seconds / floorSeconds) * 100) / 100 };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const round = (n: number): number => Math.round(n * 100) / 100;
  console.log(`nutanix benchmark: ${String(flags.vms)} AhvVms (--spec ${flags.spec}), ${String(flags.requestLatencyMs)} ms per Prism request, ${String(flags.taskMs)} ms per task`);
  const [env, simulator] = await Promise.all([
    OperatorTestEnvironment.start(),
    startPrismSimulator({
      tls: true,
      timings: { createMs: flags.taskMs, updateMs: flags.taskMs, deleteMs: flags.taskMs, learnedIpMs: flags.taskMs },
      faults: { rules: [{ kind: 'latency', latencyMs: flags.requestLatencyMs }] },
    }),
  ]);
  let operator: RunningOperator | undefined;
  try {
    await env.createNamespace(NAMESPACE);
    const names = Array.from({ length: flags.vms }, (_, i) => `vm-${String(i).padStart(4, '0')}`);
    await inBulk(names, BULK_CONCURRENCY, (name) => env.kube.create(AhvVmRef, {
      apiVersion: 'nutanix.com/v1alpha1', kind: 'AhvVm', metadata: { name, namespace: NAMESPACE }, spec: structuredClone(BENCH_SPECS[flags.spec]),
    }));
    console.log(`created ${String(flags.vms)} AhvVms; starting the controller (${String(flags.workers)} workers, ${String(flags.prismConcurrency)} Prism requests at once)`);

    operator = await env.runOperator({
      env: prismEnvFor(simulator, { PRISM_API_VERSION: flags.prismApi }),
      namespace: NAMESPACE,
      maxConcurrentReconciles: flags.workers,
      prismMaxConcurrentRequests: flags.prismConcurrency,
    });
    const prismApi = operator.prism.configured ? (await operator.prism.vms()).version : 'unconfigured';
    console.log(`the operator speaks Prism ${prismApi} for VMs (--prism-api ${flags.prismApi})`);
    const cache = operator.manager.informerFor(AhvVmRef).cache;
    const ready = (): number => cache.list().filter((avm) => isStatusConditionTrue(avm.status?.conditions, 'Ready')).length;

    const createStart = performance.now();
    let progress = setInterval(() => {
      console.log(`  ${((performance.now() - createStart) / 1000).toFixed(0)} s: ${String(ready())} Ready, ${String(simulator.inspect().vms.length)} VMs in Prism, ${String(totalRequests(simulator))} Prism requests`);
    }, PROGRESS_INTERVAL_MS);
    await waitFor(() => cache.list().length === flags.vms && ready() === flags.vms, { what: 'every AhvVm to be Ready', timeoutMs: 3_600_000, intervalMs: 100 });
    clearInterval(progress);
    const createSeconds = (performance.now() - createStart) / 1000;
    const afterCreate = simulator.inspect();
    const createRequests = totalRequests(simulator);
    const create = {
      secondsToAllReady: round(createSeconds),
      prismRequests: createRequests,
      prismRequestsPerVm: round(createRequests / flags.vms),
      createRequestsPerVm: round(afterCreate.createRequests / flags.vms),
      peakConcurrentRequests: afterCreate.peakConcurrentRequests,
      vmsInPrism: afterCreate.vms.length,
      duplicateVms: duplicateVms(simulator),
      ...aboveFloor(createSeconds, createRequests, flags),
      requests: requestsSince(simulator, new Map()),
    };
    console.log(`all ${String(flags.vms)} Ready in ${create.secondsToAllReady.toFixed(1)} s (${String(create.timesFloor)}× the ${String(create.floorSeconds)} s floor); ${String(create.prismRequestsPerVm)} Prism requests per VM; deleting them all`);

    const beforeDelete = requestSnapshot(simulator);
    const requestsBeforeDelete = totalRequests(simulator);
    const sampler = new ConcurrencySampler(simulator);
    sampler.start();
    const deleteStart = performance.now();
    progress = setInterval(() => {
      console.log(`  ${((performance.now() - deleteStart) / 1000).toFixed(0)} s: ${String(cache.list().length)} AhvVms left, ${String(simulator.inspect().vms.length)} VMs in Prism`);
    }, PROGRESS_INTERVAL_MS);
    await inBulk(names, BULK_CONCURRENCY, (name) => env.kube.delete(AhvVmRef, { namespace: NAMESPACE, name }));
    await waitFor(() => cache.list().length === 0, { what: 'every AhvVm to be gone', timeoutMs: 3_600_000, intervalMs: 100 });
    clearInterval(progress);
    sampler.stop();
    const deleteSeconds = (performance.now() - deleteStart) / 1000;
    const deleteRequests = totalRequests(simulator) - requestsBeforeDelete;
    const deletion = {
      secondsToAllGone: round(deleteSeconds),
      prismRequests: deleteRequests,
      prismRequestsPerVm: round(deleteRequests / flags.vms),
      peakConcurrentRequestsSampled: sampler.peak,
      vmsLeftInPrism: simulator.inspect().vms.length,
      ...aboveFloor(deleteSeconds, deleteRequests, flags),
      requests: requestsSince(simulator, beforeDelete),
    };
    console.log(`all gone in ${deletion.secondsToAllGone.toFixed(1)} s (${String(deletion.timesFloor)}× the ${String(deletion.floorSeconds)} s floor); ${String(deletion.vmsLeftInPrism)} VMs left in Prism`);
    console.log(JSON.stringify({
      benchmark: 'nutanix',
      prismApi,
      spec: flags.spec,
      vms: flags.vms,
      requestLatencyMs: flags.requestLatencyMs,
      taskMs: flags.taskMs,
      workers: flags.workers,
      prismMaxConcurrentRequests: flags.prismConcurrency,
      create,
      delete: deletion,
    }));
  } finally {
    await operator?.stop();
    await Promise.all([env.stop(), simulator.stop()]);
  }
}

await main();

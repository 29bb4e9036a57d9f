// The `core` benchmark: `npm run bench -- core [--objects N] [--idle-seconds S] [--workers W]`.
//
// On a local control plane, N Widgets are created in bulk (by another process), then one controller built on
// controller-core's Manager converges them: each gets an owned ConfigMap (server-side apply) and Ready=True. Measured
// from manager start until every Widget is Ready and every ConfigMap exists, as the controller's own caches show it,
// then over an idle window. Prints progress, the figures beside the targets and, as the last line, one JSON
// object. It never fails on a number.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { ControlPlane, waitFor } from '@k8s-operators/testkit';
import { KubeClient, Manager, Resources, createLogger, crdManifest, isStatusConditionTrue } from '@k8s-operators/controller-core';
import { Convergence } from './convergence.ts';
import { printTargets, requestsBetween, totalRequests, watchRestarts, writeRequests } from './figures.ts';
import { MemorySampler, cpuSecondsSince, processCpuSeconds } from './process-usage.ts';
import { registerWidgetController } from './widget-controller.ts';
import { WidgetRef, WidgetResource } from './widget-resource.ts';

const NAMESPACE = 'bench';
/** Creates in flight during the bulk import. */
const CREATE_CONCURRENCY = 32;
const MEMORY_SAMPLE_INTERVAL_MS = 100;
const PROGRESS_INTERVAL_MS = 5_000;
const FLAGS_HELP = 'flags: --objects N (default 2000), --idle-seconds S (default 60), --workers W (default 4)';

interface Flags {
  objects: number;
  idleSeconds: number;
  /** maxConcurrentReconciles: 4, a common operator setting (controller-runtime's default is 1). */
  workers: number;
}

function parseFlags(args: string[]): Flags {
  const { values } = parseArgs({
    args,
    options: {
      objects: { type: 'string', default: '2000' },
      'idle-seconds': { type: 'string', default: '60' },
      workers: { type: 'string', default: '4' },
    },
  });
  const integer = (flag: string, value: string, min: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${String(min)}, got ${JSON.stringify(value)}`);
    return n;
  };
  return {
    objects: integer('objects', values.objects, 1),
    idleSeconds: integer('idle-seconds', values['idle-seconds'], 0),
    workers: integer('workers', values.workers, 1),
  };
}

/** Installs the Widget CRD and waits until its endpoint serves. */
async function installWidgetCrd(client: KubeClient): Promise<void> {
  const crd = crdManifest(WidgetResource);
  await client.apply(Resources.CustomResourceDefinition, crd, { fieldManager: 'core-bench' });
  await waitFor(
    async () => {
      const served = await client.get(Resources.CustomResourceDefinition, { name: crd.metadata.name });
      return served?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    },
    { what: 'the Widget CRD to be established', timeoutMs: 30_000 },
  );
  // Established updates discovery; the REST endpoint may take a moment longer.
  await waitFor(async () => (await client.list(WidgetRef, { namespace: NAMESPACE, pageSize: 1 })).items, {
    what: 'the widgets endpoint to be served',
    timeoutMs: 30_000,
  });
}

/**
 * Creates the Widgets from a child process (create-widgets.ts), so the memory and CPU of a bulk import of thousands
 * of objects never count as the controller's.
 */
async function importWidgets(kubeconfig: string, count: number): Promise<void> {
  // Same module resolution as this process (`--conditions=source`), none of its other flags (`--cpu-prof`, say).
  const conditions = process.execArgv.filter((flag) => flag.startsWith('--conditions'));
  const script = join(import.meta.dirname, 'create-widgets.ts');
  await promisify(execFile)(process.execPath, [...conditions, script, kubeconfig, NAMESPACE, String(count), String(CREATE_CONCURRENCY)]);
}

/** Runs the controller from manager start through convergence and the idle window; returns the figures. */
async function measure(controlPlane: ControlPlane, kubeConfig: KubeConfig, flags: Flags): Promise<Record<string, unknown>> {
  const { apiServer: apiServerPid, etcd: etcdPid } = controlPlane.processIds();
  if (apiServerPid === undefined || etcdPid === undefined) throw new Error('the control plane reports no kube-apiserver or etcd PID');
  const manager = await Manager.create({
    name: 'core-bench',
    kubeConfig,
    namespace: NAMESPACE,
    leaderElection: { enabled: false },
    healthProbeBindAddress: '0',
    metricsBindAddress: '0',
    logger: createLogger({ level: 'silent' }),
  });
  const counts = registerWidgetController(manager, flags.workers);
  const convergence = new Convergence(manager, flags.objects);

  const memory = new MemorySampler();
  const rssAtStartMib = process.memoryUsage.rss() / 2 ** 20;
  const requestsAtStart = manager.client.requestCounts();
  const cpuAtStart = process.cpuUsage();
  const [apiServerCpuAtStart, etcdCpuAtStart] = await Promise.all([processCpuSeconds(apiServerPid), processCpuSeconds(etcdPid)]);
  const started = performance.now();
  memory.start(MEMORY_SAMPLE_INTERVAL_MS);
  const running = manager.start();
  console.log(`manager started with ${String(flags.workers)} workers; waiting for every Widget to be Ready`);
  const progress = setInterval(() => {
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(`  ${seconds} s: ${String(convergence.ready)} Ready, ${String(convergence.configMaps)} ConfigMaps, ${String(counts.reconciles)} reconciles`);
  }, PROGRESS_INTERVAL_MS);
  try {
    await Promise.race([
      convergence.reached,
      running.then(() => Promise.reject(new Error('the manager stopped before every Widget was Ready'))),
    ]);
  } finally {
    clearInterval(progress);
  }
  const secondsToAllReady = (performance.now() - started) / 1000;
  const controllerCpuSeconds = cpuSecondsSince(cpuAtStart);
  const [apiServerCpuSeconds, etcdCpuSeconds] = await Promise.all([
    processCpuSeconds(apiServerPid).then((seconds) => seconds - apiServerCpuAtStart),
    processCpuSeconds(etcdPid).then((seconds) => seconds - etcdCpuAtStart),
  ]);
  const requestsAtConvergence = manager.client.requestCounts();
  const requests = requestsBetween(requestsAtStart, requestsAtConvergence);
  const reconciles = counts.reconciles;
  const writesByKind = { configmap_applies: counts.configMapApplies, status_writes: counts.statusWrites };
  console.log(`converged after ${secondsToAllReady.toFixed(1)} s: ${String(reconciles)} reconciles, ${String(totalRequests(requests))} API requests`);

  console.log(`idle for ${String(flags.idleSeconds)} s, counting the controller's API requests`);
  await sleep(flags.idleSeconds * 1000);
  const idleRequests = requestsBetween(requestsAtConvergence, manager.client.requestCounts());
  const idleReconciles = counts.reconciles - reconciles;
  const memoryPeaks = memory.stop();
  const restarts = watchRestarts(manager.informers.informers());
  console.log(`idle window over: ${String(totalRequests(idleRequests))} requests, ${String(idleReconciles)} reconciles`);
  manager.stop();
  await running;

  printTargets({
    objects: flags.objects,
    writesAtConvergence: writeRequests(requests),
    idleWrites: writeRequests(idleRequests),
    rssMibPeak: memoryPeaks.rssMib,
    controllerCpuSeconds,
    apiServerCpuSeconds,
  });
  const round = (n: number, digits: number): number => Number(n.toFixed(digits));
  return {
    objects: flags.objects,
    workers: flags.workers,
    seconds_to_all_ready: round(secondsToAllReady, 2),
    reconciles,
    reconcile_errors: counts.errors,
    api_requests_by_verb: requests,
    writes_per_object: round(writeRequests(requests) / flags.objects, 4),
    ...writesByKind,
    idle_seconds: flags.idleSeconds,
    idle_api_requests_per_min: flags.idleSeconds === 0 ? null : round((totalRequests(idleRequests) * 60) / flags.idleSeconds, 2),
    idle_api_requests_by_verb: idleRequests,
    idle_reconciles: idleReconciles,
    watch_restarts: restarts,
    controller_cpu_seconds: round(controllerCpuSeconds, 2),
    apiserver_cpu_seconds: round(apiServerCpuSeconds, 2),
    etcd_cpu_seconds: round(etcdCpuSeconds, 2),
    rss_mib_at_start: round(rssAtStartMib, 1),
    rss_mib_peak: round(memoryPeaks.rssMib, 1),
    v8_heap_total_mib_peak: round(memoryPeaks.heapTotalMib, 1),
  };
}

/** After every measurement, with the set-up client, so checking costs the controller nothing. */
async function verify(client: KubeClient): Promise<void> {
  const widgets = (await client.list(WidgetRef, { namespace: NAMESPACE })).items;
  const ready = widgets.filter((widget) => isStatusConditionTrue(widget.status?.conditions, 'Ready')).length;
  const configMaps = (await client.list(Resources.ConfigMap, { namespace: NAMESPACE })).items;
  const owned = configMaps.filter((configMap) => configMap.metadata?.ownerReferences?.some((owner) => owner.kind === WidgetRef.kind)).length;
  console.log(`verified on the API server: ${String(ready)}/${String(widgets.length)} Widgets Ready, ${String(owned)} owned ConfigMaps`);
}

async function main(flags: Flags): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'core-bench-'));
  const controlPlane = await ControlPlane.start({ dir });
  // Ctrl-C: leave no control plane and no data directory behind.
  process.once('SIGINT', () => {
    void controlPlane.stop().then(() => rm(dir, { recursive: true, force: true })).finally(() => process.exit(130));
  });
  try {
    console.log(`control plane up at ${controlPlane.url} (data in ${dir})`);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.adminKubeconfig);
    // Set-up and the bulk import use their own clients: the controller's request counts are the controller's alone.
    const setup = await KubeClient.fromKubeConfig(kubeConfig, { userAgent: 'core-bench-setup' });
    await setup.create(Resources.Namespace, { metadata: { name: NAMESPACE } });
    await installWidgetCrd(setup);
    const importStarted = performance.now();
    await importWidgets(controlPlane.adminKubeconfig, flags.objects);
    const importSeconds = (performance.now() - importStarted) / 1000;
    console.log(`created ${String(flags.objects)} Widgets in ${importSeconds.toFixed(1)} s (${String(CREATE_CONCURRENCY)} in flight)`);

    const figures = await measure(controlPlane, kubeConfig, flags);
    await verify(setup);
    await setup.close();
    return { ...figures, bulk_create_seconds: Number(importSeconds.toFixed(2)) };
  } finally {
    await controlPlane.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

let flags: Flags;
try {
  flags = parseFlags(process.argv.slice(2));
} catch (error) {
  console.error(`core benchmark: ${(error as Error).message}\n${FLAGS_HELP}`);
  process.exit(2);
}
console.log(JSON.stringify(await main(flags)));

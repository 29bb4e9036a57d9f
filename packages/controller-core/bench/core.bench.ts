// The `core` benchmark: `npm run bench -- core [--objects N] [--idle-seconds S] [--workers W] [--restart-call-ms M]
//                          [--apiserver-cpus C]`.
//
// On a local control plane, N Widgets are created in bulk (by another process), then one controller built on
// controller-core's Manager converges them: each gets an owned ConfigMap (server-side apply) and Ready=True. The
// controller is a process of its own (widget-operator.ts, compiled to JavaScript and started with the images' Node
// flags), so its memory and CPU are an operator's alone. Measured from manager start until every Widget is Ready and
// every ConfigMap exists, as the controller's own caches show it, then over an idle window. Then the controller is
// restarted twice over the converged Widgets, without and with the priority queue, and one Widget is edited while the
// backlog of listed Widgets drains (restart-backlog.ts). Prints progress, the figures beside the targets and,
// as the last line, one JSON object. It never fails on a number.
import { execFile, fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import { ControlPlane } from '@k8s-operators/testkit';
import { KubeClient, Resources, crdManifest, isStatusConditionTrue } from '@k8s-operators/controller-core';
import { printTargets, totalRequests, writeRequests } from './figures.ts';
import { limitCpu } from './cpu-limit.ts';
import { OPERATOR_NODE_FLAGS } from '../src/operator-node-flags.ts';
import { nextReport } from './operator-reports.ts';
import { processCpuSeconds } from './process-usage.ts';
import { measureRestartBacklog } from './restart-backlog.ts';
import { waitForCrdServed } from '../test/client-test-cluster.ts';
import { WidgetRef } from './widget-ref.ts';
import { WidgetResource } from './widget-resource.ts';

const NAMESPACE = 'bench';
/** Creates in flight during the bulk import. */
const CREATE_CONCURRENCY = 32;
const FLAGS_HELP =
  'flags: --objects N (default 2000), --idle-seconds S (default 60), --workers W (default 4), ' +
  '--restart-call-ms M (each reconcile\'s external call after the restart; default 10), ' +
  '--apiserver-cpus C (limit kube-apiserver to C cores while the controller runs, e.g. 0.5: a second throughput; needs root), ' +
  `--node-flags="F" (the controller process's Node flags; default the images': "${OPERATOR_NODE_FLAGS.join(' ')}")`;

interface Flags {
  objects: number;
  idleSeconds: number;
  /** maxConcurrentReconciles: 4, a common operator setting (controller-runtime's default is 1). */
  workers: number;
  /** After the restart, the milliseconds each reconcile waits for an external call. */
  restartCallMs: number;
  /** Cores kube-apiserver may use while the controller runs; undefined: no limit. */
  apiServerCpus: number | undefined;
  /** Node flags for the controller process. */
  nodeFlags: readonly string[];
}

function parseFlags(args: string[]): Flags {
  const { values } = parseArgs({
    args,
    options: {
      objects: { type: 'string', default: '2000' },
      'idle-seconds': { type: 'string', default: '60' },
      workers: { type: 'string', default: '4' },
      'restart-call-ms': { type: 'string', default: '10' },
      'apiserver-cpus': { type: 'string' },
      'node-flags': { type: 'string' },
    },
  });
  const integer = (flag: string, value: string, min: number): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${String(min)}, got ${JSON.stringify(value)}`);
    return n;
  };
  const cores = (value: string): number => {
    const n = Number(value);
    if (!(n >= 0.01 && n <= 64)) throw new Error(`--apiserver-cpus must be a number of cores between 0.01 and 64, got ${JSON.stringify(value)}`);
    return n;
  };
  return {
    objects: integer('objects', values.objects, 1),
    idleSeconds: integer('idle-seconds', values['idle-seconds'], 0),
    workers: integer('workers', values.workers, 1),
    restartCallMs: integer('restart-call-ms', values['restart-call-ms'], 0),
    apiServerCpus: values['apiserver-cpus'] === undefined ? undefined : cores(values['apiserver-cpus']),
    nodeFlags: values['node-flags'] === undefined ? OPERATOR_NODE_FLAGS : values['node-flags'].split(' ').filter((flag) => flag !== ''),
  };
}

/** Installs the Widget CRD and waits until its endpoint serves. */
async function installWidgetCrd(client: KubeClient): Promise<void> {
  const crd = crdManifest(WidgetResource);
  await client.apply(Resources.CustomResourceDefinition, crd, { fieldManager: 'core-bench' });
  await waitForCrdServed(client, crd.metadata.name, WidgetRef, NAMESPACE);
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

/**
 * Compiles the controller process to JavaScript: controller-core's dist (through nx, cached) and widget-operator.ts.
 * Running TypeScript through Node's type stripping would load a compiler into the process and add ~25 MiB that no
 * image carries.
 */
async function compileOperator(): Promise<string> {
  const repo = join(import.meta.dirname, '../../..');
  const run = promisify(execFile);
  await run(process.execPath, [join(repo, 'node_modules/nx/dist/bin/nx.js'), 'run', 'controller-core:build'], { cwd: repo });
  await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(import.meta.dirname, 'tsconfig.operator.json')], { cwd: repo });
  return join(import.meta.dirname, 'dist/widget-operator.js');
}

/** Peak resident set of a process so far, in MiB: the kernel's high-water mark, not a sample. */
async function peakRssMib(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`/proc/${String(pid)}/status has no VmHWM line`);
  return Number(kib) / 1024;
}

/** Runs the controller process from manager start through convergence and the idle window; returns the figures. */
async function measure(controlPlane: ControlPlane, operatorScript: string, flags: Flags): Promise<Record<string, unknown>> {
  const { apiServer: apiServerPid, etcd: etcdPid } = controlPlane.processIds();
  if (apiServerPid === undefined || etcdPid === undefined) throw new Error('the control plane reports no kube-apiserver or etcd PID');
  const child = fork(operatorScript, [NAMESPACE, String(flags.objects), String(flags.workers)], {
    execPath: process.execPath,
    execArgv: [...flags.nodeFlags],
    env: { ...process.env, KUBECONFIG: controlPlane.adminKubeconfig },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const started = await nextReport(child, 'started');
    const [apiServerCpuAtStart, etcdCpuAtStart] = await Promise.all([processCpuSeconds(apiServerPid), processCpuSeconds(etcdPid)]);
    console.log(`manager started with ${String(flags.workers)} workers; waiting for every Widget to be Ready`);
    const converged = await nextReport(child, 'converged');
    const [apiServerCpuSeconds, etcdCpuSeconds] = await Promise.all([
      processCpuSeconds(apiServerPid).then((seconds) => seconds - apiServerCpuAtStart),
      processCpuSeconds(etcdPid).then((seconds) => seconds - etcdCpuAtStart),
    ]);
    const { requests, reconciles } = converged;
    console.log(`converged after ${converged.seconds.toFixed(1)} s: ${String(reconciles)} reconciles, ${String(totalRequests(requests))} API requests`);

    console.log(`idle for ${String(flags.idleSeconds)} s, counting the controller's API requests`);
    await sleep(flags.idleSeconds * 1000);
    const idleReport = nextReport(child, 'idle');
    child.send('report');
    const idle = await idleReport;
    const rssMibPeak = await peakRssMib(child.pid ?? 0);
    console.log(`idle window over: ${String(totalRequests(idle.requests))} requests, ${String(idle.reconciles)} reconciles`);
    child.send('stop');
    const code = await exited;
    if (code !== 0) throw new Error(`the controller process exited with code ${String(code)}`);

    printTargets({
      objects: flags.objects,
      writesAtConvergence: writeRequests(requests),
      idleWrites: writeRequests(idle.requests),
      rssMibPeak,
      controllerCpuSeconds: converged.cpuSeconds,
      apiServerCpuSeconds,
    });
    const round = (n: number, digits: number): number => Number(n.toFixed(digits));
    return {
      objects: flags.objects,
      workers: flags.workers,
      seconds_to_all_ready: round(converged.seconds, 2),
      reconciles,
      reconcile_errors: converged.errors,
      api_requests_by_verb: requests,
      writes_per_object: round(writeRequests(requests) / flags.objects, 4),
      configmap_applies: converged.configMapApplies,
      status_writes: converged.statusWrites,
      idle_seconds: flags.idleSeconds,
      idle_api_requests_per_min: flags.idleSeconds === 0 ? null : round((totalRequests(idle.requests) * 60) / flags.idleSeconds, 2),
      idle_api_requests_by_verb: idle.requests,
      idle_reconciles: idle.reconciles,
      watch_restarts: idle.watchRestarts,
      controller_cpu_seconds: round(converged.cpuSeconds, 2),
      apiserver_cpu_seconds: round(apiServerCpuSeconds, 2),
      etcd_cpu_seconds: round(etcdCpuSeconds, 2),
      controller_node_flags: flags.nodeFlags.join(' '),
      rss_mib_at_start: round(started.rssMib, 1),
      rss_mib_peak: round(rssMibPeak, 1),
      memory_mib: { at_start: started.memory, at_convergence: converged.memory, after_idle: idle.memory },
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
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
  console.log('compiling the controller process');
  const operatorScript = await compileOperator();
  const dir = await mkdtemp(join(tmpdir(), 'core-bench-'));
  const controlPlane = await ControlPlane.start({ dir });
  // Ctrl-C: leave no control plane and no data directory behind.
  process.once('SIGINT', () => {
    void controlPlane.stop().then(() => rm(dir, { recursive: true, force: true })).finally(() => process.exit(130));
  });
  try {
    console.log(`control plane up at ${controlPlane.url} (data in ${dir})`);
    // Set-up and the bulk import use their own clients: the controller's request counts are the controller's alone.
    const setup = await KubeClient.load({ kubeconfig: controlPlane.adminKubeconfig, userAgent: 'core-bench-setup' });
    await setup.create(Resources.Namespace, { metadata: { name: NAMESPACE } });
    await installWidgetCrd(setup);
    const importStarted = performance.now();
    await importWidgets(controlPlane.adminKubeconfig, flags.objects);
    const importSeconds = (performance.now() - importStarted) / 1000;
    console.log(`created ${String(flags.objects)} Widgets in ${importSeconds.toFixed(1)} s (${String(CREATE_CONCURRENCY)} in flight)`);

    const apiServerPid = controlPlane.processIds().apiServer;
    const cpuLimit = flags.apiServerCpus === undefined || apiServerPid === undefined ? undefined : await limitCpu(apiServerPid, flags.apiServerCpus, 'core-bench-apiserver');
    if (cpuLimit !== undefined) console.log(`kube-apiserver limited to ${String(flags.apiServerCpus)} cores while the controller runs`);
    const figures = await measure(controlPlane, operatorScript, flags).finally(() => cpuLimit?.lift());
    await verify(setup);
    const restart = [];
    for (const usePriorityQueue of [false, true]) {
      console.log(`restarting the controller over ${String(flags.objects)} converged Widgets ${usePriorityQueue ? 'with' : 'without'} the priority queue (${String(flags.restartCallMs)} ms per reconcile); the last Widget listed is edited while they drain`);
      const result = await measureRestartBacklog(controlPlane, setup, operatorScript, { namespace: NAMESPACE, objects: flags.objects, workers: flags.workers, externalCallMs: flags.restartCallMs, nodeFlags: flags.nodeFlags }, usePriorityQueue);
      console.log(`  the edit waited ${String(result.edit_wait_ms)} ms for its reconcile, behind ${String(result.reconciles_ahead_of_edit)} others; the backlog took ${String(result.backlog_seconds)} s`);
      restart.push(result);
    }
    await setup.close();
    return { ...figures, apiserver_cpus: flags.apiServerCpus ?? null, bulk_create_seconds: Number(importSeconds.toFixed(2)), restart_edit_latency: restart };
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

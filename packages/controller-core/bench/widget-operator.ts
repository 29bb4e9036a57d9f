// The controller under test, as its own process, the way an operator image runs: compiled JavaScript, a Manager, one
// controller, nothing else loaded. core.bench.ts compiles this file, starts it with the image's Node flags and talks
// to it over the IPC channel:
//
//   child → parent  { type: 'started', rssMib, memory }             manager created, before it starts
//   child → parent  { type: 'converged', seconds, reconciles, ... }  every Widget Ready, every ConfigMap cached
//   parent → child  'report'                                          after the idle window
//   child → parent  { type: 'idle', requests, reconciles, ... }
//   parent → child  'stop'                                            the manager stops and the process exits
//
// Started with `restart-priority` or `restart-fifo` (and the milliseconds of each reconcile's external call), it is
// instead the same operator restarted over Widgets that are already converged, with (or without) the priority queue:
//
//   child → parent  { type: 'started', ... }
//   child → parent  { type: 'backlog' }                               the initial list is queued and being worked
//   parent → child  { probe: key }                                    the parent is about to edit that Widget
//   child → parent  { type: 'armed' }                                 the parent edits it now
//   child → parent  { type: 'probe', startedAt, reconcilesAhead }     its reconcile started, after so many others
//   child → parent  { type: 'drained', seconds, reconciles }          every listed Widget reconciled
//   parent → child  'stop'
//
// Peak RSS is read by the parent from /proc (VmHWM), so it covers the process's whole life, start-up included. Each
// report, and each progress line, also says where the memory is (memory-breakdown.ts).
//
//   KUBECONFIG=<file> node widget-operator.js <namespace> <objects> <workers> [restart-priority|restart-fifo <external-call-ms>]
//
// The kubeconfig comes through KUBECONFIG and the manager's default loading, as in a deployment.
import { Manager, Resources, createLogger, type RequestCounts } from '@k8s-operators/controller-core';
import { Convergence } from './convergence.ts';
import { describeMemory, memoryBreakdown, type MemoryBreakdown } from './memory-breakdown.ts';
import { requestsBetween, totalRequests, watchRestarts } from './figures.ts';
import { registerWidgetController } from './widget-controller.ts';
import { WidgetRef } from './widget-ref.ts';

const PROGRESS_INTERVAL_MS = 5_000;

/** What the parent receives. */
export type OperatorReport =
  | { type: 'started'; rssMib: number; memory: MemoryBreakdown }
  | {
      type: 'converged';
      seconds: number;
      reconciles: number;
      errors: number;
      configMapApplies: number;
      statusWrites: number;
      requests: RequestCounts;
      cpuSeconds: number;
      memory: MemoryBreakdown;
    }
  | { type: 'idle'; requests: RequestCounts; reconciles: number; watchRestarts: ReturnType<typeof watchRestarts>; memory: MemoryBreakdown }
  | { type: 'backlog' }
  | { type: 'armed' }
  | { type: 'probe'; startedAt: number; reconcilesAhead: number }
  | { type: 'drained'; seconds: number; reconciles: number };

const [namespace = '', objectsArg = '', workersArg = '', mode = 'converge', externalCallMsArg = '0'] = process.argv.slice(2);
const objects = Number(objectsArg);
const workers = Number(workersArg);
const externalCallMs = Number(externalCallMsArg);
const send = process.send?.bind(process);
if (send === undefined || namespace === '' || !Number.isInteger(objects) || !Number.isInteger(workers) ||
  !['converge', 'restart-priority', 'restart-fifo'].includes(mode) || !(externalCallMs >= 0)) {
  console.error('usage (from core.bench.ts, with an IPC channel): KUBECONFIG=<file> widget-operator.js <namespace> <objects> <workers> [restart-priority|restart-fifo <external-call-ms>]');
  process.exit(2);
}
const report = (message: OperatorReport): void => {
  send(message);
};

const manager = await Manager.create({
  name: 'core-bench',
  namespace,
  leaderElection: { enabled: false },
  healthProbeBindAddress: '0',
  metricsBindAddress: '0',
  logger: createLogger({ level: 'silent' }),
});
if (mode !== 'converge') {
  await runRestart(mode === 'restart-priority');
  process.exit(0);
}
const counts = registerWidgetController(manager, { workers });
const convergence = new Convergence(manager, objects);
report({ type: 'started', rssMib: process.memoryUsage.rss() / 2 ** 20, memory: memoryBreakdown() });

const requestsAtStart = manager.client.requestCounts();
const cpuAtStart = process.cpuUsage();
const started = performance.now();
const running = manager.start();
const progress = setInterval(() => {
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const ready = `${String(convergence.ready)} Ready, ${String(convergence.configMaps)} ConfigMaps, ${String(counts.reconciles)} reconciles`;
  console.log(`  ${seconds} s: ${ready}; ${describeMemory(memoryBreakdown())}`);
}, PROGRESS_INTERVAL_MS);
try {
  await Promise.race([convergence.reached, running.then(() => Promise.reject(new Error('the manager stopped before every Widget was Ready')))]);
} finally {
  clearInterval(progress);
}
const seconds = (performance.now() - started) / 1000;
const { user, system } = process.cpuUsage(cpuAtStart);
const requestsAtConvergence = manager.client.requestCounts();
const reconcilesAtConvergence = counts.reconciles;
report({
  type: 'converged',
  seconds,
  reconciles: reconcilesAtConvergence,
  errors: counts.errors,
  configMapApplies: counts.configMapApplies,
  statusWrites: counts.statusWrites,
  requests: requestsBetween(requestsAtStart, requestsAtConvergence),
  cpuSeconds: (user + system) / 1e6,
  memory: memoryBreakdown(),
});

process.on('message', (message) => {
  if (message === 'report') {
    report({
      type: 'idle',
      requests: requestsBetween(requestsAtConvergence, manager.client.requestCounts()),
      reconciles: counts.reconciles - reconcilesAtConvergence,
      watchRestarts: watchRestarts([manager.informerFor(WidgetRef), manager.informerFor(Resources.ConfigMap)]),
      memory: memoryBreakdown(),
    });
  } else if (message === 'stop') {
    manager.stop();
  }
});
// The parent going away (Ctrl-C, a crash) stops the controller too.
process.on('disconnect', () => {
  manager.stop();
});
await running;
console.log(`controller stopped after ${String(totalRequests(manager.client.requestCounts()))} API requests`);
process.disconnect();

/**
 * The restart: every Widget is listed again and queued, each reconcile taking `externalCallMs`; the parent edits one
 * Widget while they drain, and the time its reconcile waited is what the priority queue changes.
 */
async function runRestart(usePriorityQueue: boolean): Promise<void> {
  let probe: string | undefined;
  let reconcilesAtArming = 0;
  let reconciles = 0;
  const startedAt = performance.now();
  const { promise: drained, resolve: drain } = Promise.withResolvers<undefined>();
  let probed = false;
  registerWidgetController(manager, {
    workers,
    usePriorityQueue,
    externalCallMs,
    onReconcileStart: (widget) => {
      reconciles++;
      if (reconciles === workers * 10) report({ type: 'backlog' });
      if (!probed && probe !== undefined && `${namespace}/${widget.metadata.name ?? ''}` === probe && widget.spec.color === 'edited') {
        probed = true;
        report({ type: 'probe', startedAt: Date.now(), reconcilesAhead: reconciles - 1 - reconcilesAtArming });
      }
      if (probed && reconciles >= objects) drain(undefined);
    },
  });
  process.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'probe' in message) {
      probe = String(message.probe);
      reconcilesAtArming = reconciles;
      report({ type: 'armed' });
    } else if (message === 'stop') manager.stop();
  });
  process.on('disconnect', () => { manager.stop(); });
  report({ type: 'started', rssMib: process.memoryUsage.rss() / 2 ** 20, memory: memoryBreakdown() });
  const running = manager.start();
  await Promise.race([drained, running.then(() => Promise.reject(new Error('the manager stopped before the backlog drained')))]);
  report({ type: 'drained', seconds: (performance.now() - startedAt) / 1000, reconciles });
  await running;
  process.disconnect();
}

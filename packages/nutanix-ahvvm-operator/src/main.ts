// The nutanix-ahvvm-operator process: flags and the Prism connection in, a controller-core Manager with the AhvVm
// controller, out on SIGTERM.
import { hostname } from 'node:os';
import { createLogger, EventRecorder, flagsOrExit, Manager, managerOptionsFrom } from '@k8s-operators/controller-core';
import { setupAhvVmController } from './controller/ahvvm-controller.ts';
import { connectToPrism } from './controller/prism-connection.ts';
import { parseOperatorFlags, USAGE } from './flags.ts';
import { registerAhvVmMetrics } from './metrics/ahvvm-metrics.ts';

const flags = flagsOrExit('nutanix-ahvvm-operator', USAGE, () => parseOperatorFlags(process.argv.slice(2), process.env));

const logger = createLogger({ name: 'nutanix-ahvvm-operator', level: flags.logLevel });
const manager = await Manager.create({ name: 'nutanix-ahvvm-operator', logger, ...managerOptionsFrom(flags) });
const metrics = registerAhvVmMetrics(manager.metrics.registry);
const prism = connectToPrism(process.env, {
  metrics,
  maxConcurrentRequests: flags.prismMaxConcurrentRequests,
  ...(flags.prismApiVersion === undefined ? {} : { apiVersion: flags.prismApiVersion }),
  onApiSelected: (version, setting) => {
    logger.info({ api: version, setting }, `using the Prism Central ${version} API for VMs`);
  },
});
const instance = process.env.POD_NAME ?? hostname();
if (!prism.configured) {
  // Not a crash loop: the operator runs and every AhvVm says Ready=False ConfigurationError with this problem.
  logger.error({ problem: prism.problem }, 'Prism Central is not configured; AhvVms will report ConfigurationError until the prism-central Secret is fixed and the operator restarted');
} else {
  for (const warning of prism.warnings) logger.warn(warning);
  const podName = process.env.POD_NAME;
  const podNamespace = process.env.POD_NAMESPACE;
  if (prism.insecure && podName !== undefined && podNamespace !== undefined) {
    // Also where `kubectl get events -n <operator namespace>` shows it; each AhvVm gets its own Warning too.
    const events = new EventRecorder(manager.client, { reportingController: 'nutanix.com/ahvvm-operator', reportingInstance: instance, logger });
    events.event({ apiVersion: 'v1', kind: 'Pod', metadata: { name: podName, namespace: podNamespace } }, {
      type: 'Warning', reason: 'InsecureConnection', action: 'Connect', note: prism.warnings.join(' '),
    });
  }
}
setupAhvVmController(manager, {
  prism,
  metrics,
  instance,
  maxConcurrentReconciles: flags.maxConcurrentReconciles,
  intervals: { driftCheckMs: flags.driftCheckIntervalMs, taskPollMs: flags.taskPollIntervalMs },
});
logger.info({
  prism: prism.configured ? 'configured' : 'not configured',
  prismApi: prism.configured ? prism.apiSetting : undefined,
  namespace: flags.namespace ?? 'all',
  leaderElection: flags.leaderElect,
  driftCheckIntervalMs: flags.driftCheckIntervalMs,
}, 'nutanix-ahvvm-operator starting');
await manager.runUntilSignalled();

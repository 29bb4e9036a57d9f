// The nutanix-ahvvm-operator process: flags and the Prism connection in, a controller-core Manager with the AhvVm
// controller, out on SIGTERM.
import { createLogger, flagsOrExit, Manager, managerOptionsFrom } from '@k8s-operators/controller-core';
import { REPORTING_CONTROLLER, setupAhvVmController } from './controller/ahvvm-controller.ts';
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
if (!prism.configured) {
  // Not a crash loop: the operator runs and every AhvVm says Ready=False ConfigurationError with this problem.
  logger.error({ problem: prism.problem }, 'Prism Central is not configured; AhvVms will report ConfigurationError until the prism-central Secret is fixed and the operator restarted');
} else {
  for (const warning of prism.warnings) logger.warn(warning);
  // Set from the downward API only when running in a Pod, which the Event is about.
  const podNamespace = process.env.POD_NAMESPACE;
  if (prism.insecure && podNamespace !== undefined) {
    // Also where `kubectl get events -n <operator namespace>` shows it; each AhvVm gets its own Warning too.
    manager.eventRecorderFor(REPORTING_CONTROLLER).event({ apiVersion: 'v1', kind: 'Pod', metadata: { name: manager.podName, namespace: podNamespace } }, {
      type: 'Warning', reason: 'InsecureConnection', action: 'Connect', note: prism.warnings.join(' '),
    });
  }
}
setupAhvVmController(manager, {
  prism,
  metrics,
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

// The maintpage-operator process: flags in, a controller-core Manager with the MaintPage controller, out on SIGTERM.
import { hostname } from 'node:os';
import { createLogger, Manager } from '@k8s-operators/controller-core';
import { setupMaintPageController } from './controller/maintpage-controller.ts';
import { FlagError, parseOperatorFlags, USAGE, type OperatorFlags } from './flags.ts';

let flags: OperatorFlags | 'help';
try {
  flags = parseOperatorFlags(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof FlagError)) throw error;
  process.stderr.write(`maintpage-operator: ${error.message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (flags === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const logger = createLogger({ name: 'maintpage-operator', level: flags.logLevel });
const manager = await Manager.create({
  name: 'maintpage-operator',
  logger,
  ...(flags.namespace ? { namespace: flags.namespace } : {}),
  ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
  leaderElection: { enabled: flags.leaderElect },
  healthProbeBindAddress: flags.healthProbeBindAddress,
  metricsBindAddress: flags.metricsBindAddress,
});
setupMaintPageController(manager, { pageServerImage: flags.pageServerImage, instance: process.env.POD_NAME ?? hostname() });
logger.info({ pageServerImage: flags.pageServerImage, namespace: flags.namespace ?? 'all', leaderElection: flags.leaderElect }, 'maintpage-operator starting');
await manager.runUntilSignalled();

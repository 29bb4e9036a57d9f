// The maintpage-operator process: flags in, a controller-core Manager with the MaintPage controller, out on SIGTERM.
import { createLogger, flagsOrExit, Manager, managerOptionsFrom } from '@k8s-operators/controller-core';
import { setupMaintPageController } from './controller/maintpage-controller.ts';
import { parseOperatorFlags, USAGE } from './flags.ts';

const flags = flagsOrExit('maintpage-operator', USAGE, () => parseOperatorFlags(process.argv.slice(2), process.env));

const logger = createLogger({ name: 'maintpage-operator', level: flags.logLevel });
const manager = await Manager.create({ name: 'maintpage-operator', logger, ...managerOptionsFrom(flags) });
setupMaintPageController(manager, { pageServerImage: flags.pageServerImage });
logger.info({ pageServerImage: flags.pageServerImage, namespace: flags.namespace ?? 'all', leaderElection: flags.leaderElect }, 'maintpage-operator starting');
await manager.runUntilSignalled();

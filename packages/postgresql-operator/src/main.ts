// The postgresql-operator process: flags in, a controller-core Manager with the PostgreSQL and PostgreSQLBackup
// controllers and a backup store on the backup volume, out on SIGTERM.
import { createLogger, flagsOrExit, Manager, managerOptionsFrom } from '@k8s-operators/controller-core';
import { DirectoryBackupStore } from './backup/directory-store.ts';
import { setupControllers } from './controller/setup-controllers.ts';
import { parseOperatorFlags, USAGE } from './flags.ts';

const flags = flagsOrExit('postgresql-operator', USAGE, () => parseOperatorFlags(process.argv.slice(2), process.env));

const logger = createLogger({ name: 'postgresql-operator', level: flags.logLevel });
const manager = await Manager.create({ name: 'postgresql-operator', logger, ...managerOptionsFrom(flags) });
setupControllers(manager, { store: new DirectoryBackupStore(flags.backupDir) });
logger.info({ backupDir: flags.backupDir, namespace: flags.namespace ?? 'all', leaderElection: flags.leaderElect }, 'postgresql-operator starting');
await manager.runUntilSignalled();

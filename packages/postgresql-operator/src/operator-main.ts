// The postgresql-operator's operator process: flags in, a controller-core Manager with the PostgreSQL and PostgreSQLBackup
// controllers and a backup store on the backup volume, out on SIGTERM.
import { createLogger, flagsOrExit, Manager, managerOptionsFrom } from '@k8s-operators/controller-core';
import { DirectoryBackupStore } from './backup/directory-store.ts';
import { ownImage } from './controller/own-image.ts';
import { setupControllers } from './controller/setup-controllers.ts';
import { parseOperatorFlags, USAGE } from './flags.ts';

const flags = flagsOrExit('postgresql-operator', USAGE, () => parseOperatorFlags(process.argv.slice(2), process.env));

const logger = createLogger({ name: 'postgresql-operator', level: flags.logLevel });
const manager = await Manager.create({ name: 'postgresql-operator', logger, ...managerOptionsFrom(flags) });
const backupImage = flags.backupImage ?? (await ownImage(manager.client, manager.podName, process.env.POD_NAMESPACE));
if (backupImage === undefined) logger.warn('the operator cannot tell which image it runs (no --backup-image, and its own Pod was not found): backups to S3 buckets will fail until --backup-image is set');
setupControllers(manager, { store: new DirectoryBackupStore(flags.backupDir), ...(backupImage === undefined ? {} : { backupImage }) });
logger.info({ backupDir: flags.backupDir, backupImage, namespace: flags.namespace ?? 'all', leaderElection: flags.leaderElect }, 'postgresql-operator starting');
await manager.runUntilSignalled();

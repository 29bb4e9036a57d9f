// The postgresql-operator's operator process: flags in, a controller-core Manager with the PostgreSQL and PostgreSQLBackup
// controllers, the backup volume reached through the backup store service, out on SIGTERM.
import { createLogger, flagsOrExit, Manager, managerOptionsFrom, podNamespace, untilApiAnswers } from '@k8s-operators/controller-core';
import { keepBackupVolume } from './store-service/backup-volume.ts';
import { ensureStoreCertificate } from './store-service/store-certificate.ts';
import { ownImage } from './controller/own-image.ts';
import { setupControllers } from './controller/setup-controllers.ts';
import { parseOperatorFlags, USAGE } from './flags.ts';

const flags = flagsOrExit('postgresql-operator', USAGE, () => parseOperatorFlags(process.argv.slice(2), process.env, () => podNamespace()));

const logger = createLogger({ name: 'postgresql-operator', level: flags.logLevel });
const manager = await Manager.create({ name: 'postgresql-operator', logger, ...managerOptionsFrom(flags) });
// Started with the whole cluster, the operator may come up before the API server: it waits for it (untilApiAnswers).
const backupImage = flags.backupImage ?? (await untilApiAnswers('reading the operator\'s own Pod for its image', () => ownImage(manager.client, manager.podName, process.env.POD_NAMESPACE), { logger }));
if (backupImage === undefined) logger.warn('the operator cannot tell which image it runs (no --backup-image, and its own Pod was not found): backups to S3 buckets will fail until --backup-image is set');
// The service cannot start before its certificate exists: every replica makes sure of it before anything else.
try {
  await untilApiAnswers('keeping the backup store service\'s certificate', () => ensureStoreCertificate(manager.client, flags.storeService), { logger });
} catch (error) {
  const { namespace, secretName } = flags.storeService;
  logger.error({ error: (error as Error).message }, `cannot keep the backup store service's certificate in Secret ${namespace}/${secretName}: the operator needs get, create and update on Secrets in that namespace (deploy/postgresql-operator/rbac/backup_store_certificate_role.yaml)`);
  process.exit(1);
}
// The backup store's Pod waits for its claim, which the install does not list (backup-volume.ts says why).
const stopKeepingVolume = new AbortController();
const keepingVolume = flags.backupVolume === undefined ? undefined : keepBackupVolume(manager.client, flags.backupVolume, logger, { signal: stopKeepingVolume.signal });
setupControllers(manager, { storeService: flags.storeService, storeTokenFile: flags.storeTokenFile, ...(backupImage === undefined ? {} : { backupImage }) });
logger.info({ backupStore: `${flags.storeService.namespace}/${flags.storeService.name}`, backupImage, namespace: flags.namespace ?? 'all', leaderElection: flags.leaderElect }, 'postgresql-operator starting');
await manager.runUntilSignalled();
stopKeepingVolume.abort();
await keepingVolume;

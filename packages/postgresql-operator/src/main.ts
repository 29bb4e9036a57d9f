// The postgresql-operator process: flags in, a controller-core Manager with the PostgreSQL and PostgreSQLBackup
// controllers and a backup store on the backup volume, out on SIGTERM.
import { hostname } from 'node:os';
import { createLogger, Manager } from '@k8s-operators/controller-core';
import { DirectoryBackupStore } from './backup/directory-store.ts';
import { setupControllers } from './controller/setup-controllers.ts';
import { FlagError, parseOperatorFlags, USAGE, type OperatorFlags } from './flags.ts';

let flags: OperatorFlags | 'help';
try {
  flags = parseOperatorFlags(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof FlagError)) throw error;
  process.stderr.write(`postgresql-operator: ${error.message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (flags === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const logger = createLogger({ name: 'postgresql-operator', level: flags.logLevel });
const manager = await Manager.create({
  name: 'postgresql-operator',
  logger,
  ...(flags.namespace ? { namespace: flags.namespace } : {}),
  ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
  leaderElection: { enabled: flags.leaderElect },
  healthProbeBindAddress: flags.healthProbeBindAddress,
  metricsBindAddress: flags.metricsBindAddress,
});
setupControllers(manager, { store: new DirectoryBackupStore(flags.backupDir), instance: process.env.POD_NAME ?? hostname() });
logger.info({ backupDir: flags.backupDir, namespace: flags.namespace ?? 'all', leaderElection: flags.leaderElect }, 'postgresql-operator starting');
await manager.runUntilSignalled();

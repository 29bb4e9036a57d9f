// The image's entry point: the operator; with `backup-job` first, one backup Job (the same image runs both, so a
// backup runs exactly the code and client tools of the operator that started it); with `backup-store` first, the
// service that serves the backup volume.
import { BACKUP_JOB_SUBCOMMAND } from './backup-job/backup-job-contract.ts';

if (process.argv[2] === BACKUP_JOB_SUBCOMMAND) await import('./backup-job/main.ts');
else if (process.argv[2] === 'backup-store') await import('./store-service/main.ts');
else await import('./operator-main.ts');

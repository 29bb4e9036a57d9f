// A backup Job's process (the operator image's entry point with `backup-job` first): input from the environment,
// one backup, the outcome in the termination message, exit 0 only for a published, verified backup. SIGTERM (the
// Job deleted, the node drained) stops pg_dump and deletes what was stored.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
// The logger alone: the runtime's index (client, informers, metrics) would add 0.4 s and 30 MiB to every Job's start.
import { createLogger } from '@k8s-operators/controller-core/log';
import { BACKUP_JOB_INPUT_ENV, BACKUP_JOB_SECRETS_DIR, parseBackupJobInput, serializeBackupJobResult, TERMINATION_MESSAGE_PATH } from './backup-job-contract.ts';
import { runBackupJob } from './run-backup-job.ts';

const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    'secrets-dir': { type: 'string', default: BACKUP_JOB_SECRETS_DIR },
    'termination-log': { type: 'string', default: TERMINATION_MESSAGE_PATH },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`Usage: postgresql-operator backup-job [--secrets-dir=DIR] [--termination-log=FILE]
Runs one backup in a Job the operator created: the work is in $${BACKUP_JOB_INPUT_ENV}, the password and the store's
credentials are files in --secrets-dir (default ${BACKUP_JOB_SECRETS_DIR}), the outcome goes to --termination-log
(default ${TERMINATION_MESSAGE_PATH}).
`);
  process.exit(0);
}
const logger = createLogger({ name: 'postgresql-backup', level: 'info' });
const terminationLog = values['termination-log'];

let input;
try {
  input = parseBackupJobInput(process.env[BACKUP_JOB_INPUT_ENV]);
} catch (error) {
  const message = (error as Error).message;
  logger.error({ error: message }, 'backup Job input refused');
  writeFileSync(terminationLog, serializeBackupJobResult({ result: 'Failed', error: message }));
  process.exit(1);
}
const stop = new AbortController();
process.once('SIGTERM', () => { stop.abort(new Error('the backup Job was stopped (SIGTERM)')); });
const where = input.store.kind === 's3' ? { bucket: input.store.bucket } : { store: input.store.url };
logger.info({ backup: `${input.key.namespace}/${input.key.postgresql}/${input.key.backup}`, ...where }, 'backup starting');
process.exitCode = await runBackupJob({ input, secretsDir: values['secrets-dir'], terminationLog, logger, signal: stop.signal });

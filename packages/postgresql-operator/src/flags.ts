import { parseArgs } from 'node:util';
import { DEFAULT_BACKUP_DIRECTORY } from './backup/directory-store.ts';

export const USAGE = `Usage: postgresql-operator [flags]
  --backup-dir=DIR                   where backups are stored: the backup volume's mount point (default ${DEFAULT_BACKUP_DIRECTORY})
  --leader-elect=true|false          run controllers only while holding the Lease (default true)
  --health-probe-bind-address=ADDR   /healthz and /readyz (default :8081)
  --metrics-bind-address=ADDR        /metrics and /debug/queue (default :8080; 0 disables)
  --namespace=NS                     watch only this namespace (default all; or $WATCH_NAMESPACE)
  --log-level=LEVEL                  debug, info, warn, error (default info; debug logs every reconcile and its reasons)`;

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface OperatorFlags {
  backupDir: string;
  leaderElect: boolean;
  healthProbeBindAddress: string;
  metricsBindAddress: string;
  namespace: string | undefined;
  logLevel: LogLevel;
}

/** A flag problem, said so that the person starting the operator knows what to change. */
export class FlagError extends Error {}

/** Parses the command line (and the environment variables that stand in for flags). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorFlags | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'backup-dir': { type: 'string', default: DEFAULT_BACKUP_DIRECTORY },
        'leader-elect': { type: 'string', default: 'true' },
        'health-probe-bind-address': { type: 'string', default: ':8081' },
        'metrics-bind-address': { type: 'string', default: ':8080' },
        namespace: { type: 'string' },
        'log-level': { type: 'string', default: 'info' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (values.help) return 'help';
  if (!values['backup-dir'].startsWith('/')) throw new FlagError(`--backup-dir must be an absolute path, not "${values['backup-dir']}"`);
  if (values['leader-elect'] !== 'true' && values['leader-elect'] !== 'false') throw new FlagError(`--leader-elect must be true or false, not "${values['leader-elect']}"`);
  const logLevel = LOG_LEVELS.find((l) => l === values['log-level']);
  if (!logLevel) throw new FlagError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, not "${values['log-level']}"`);
  return {
    backupDir: values['backup-dir'],
    leaderElect: values['leader-elect'] === 'true',
    healthProbeBindAddress: values['health-probe-bind-address'],
    metricsBindAddress: values['metrics-bind-address'],
    namespace: values.namespace ?? env.WATCH_NAMESPACE,
    logLevel,
  };
}

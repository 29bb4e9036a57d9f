import { managerFlags, MANAGER_FLAG_USAGE, parseCommandLine, FlagError, type ManagerFlags } from '@k8s-operators/controller-core';
import { DEFAULT_BACKUP_DIRECTORY } from './backup/directory-store.ts';

export { FlagError };

export const USAGE = `Usage: postgresql-operator [flags]
  --backup-dir=DIR                   where backups are stored: the backup volume's mount point (default ${DEFAULT_BACKUP_DIRECTORY})
${MANAGER_FLAG_USAGE}`;

export interface OperatorFlags extends ManagerFlags {
  backupDir: string;
}

/** Parses the command line (and the environment variable that stands in for --namespace). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorFlags | 'help' {
  const values = parseCommandLine(argv, { 'backup-dir': { type: 'string', default: DEFAULT_BACKUP_DIRECTORY } });
  if (values.help) return 'help';
  if (!values['backup-dir'].startsWith('/')) throw new FlagError(`--backup-dir must be an absolute path, not "${values['backup-dir']}"`);
  return { ...managerFlags(values, env), backupDir: values['backup-dir'] };
}

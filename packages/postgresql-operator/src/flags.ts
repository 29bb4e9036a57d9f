import { managerFlags, MANAGER_FLAG_USAGE, parseCommandLine, FlagError, type ManagerFlags } from '@k8s-operators/controller-core';
import { DEFAULT_BACKUP_DIRECTORY } from './backup/directory-store.ts';

export { FlagError };

export const USAGE = `Usage: postgresql-operator [flags]
  --backup-dir=DIR                   where backups are stored: the backup volume's mount point (default ${DEFAULT_BACKUP_DIRECTORY})
  --backup-image=IMAGE               the image backup Jobs run (default: the operator Pod's own image)
${MANAGER_FLAG_USAGE}`;

export interface OperatorFlags extends ManagerFlags {
  backupDir: string;
  /** Undefined: the image the operator's own Pod runs. */
  backupImage?: string;
}

/** Parses the command line (and the environment variable that stands in for --namespace). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorFlags | 'help' {
  const values = parseCommandLine(argv, { 'backup-dir': { type: 'string', default: DEFAULT_BACKUP_DIRECTORY }, 'backup-image': { type: 'string' } });
  if (values.help) return 'help';
  if (!values['backup-dir'].startsWith('/')) throw new FlagError(`--backup-dir must be an absolute path, not "${values['backup-dir']}"`);
  const backupImage = values['backup-image'];
  if (backupImage === '') throw new FlagError('--backup-image is empty: give an image reference, or leave it out to use the operator\'s own');
  return { ...managerFlags(values, env), backupDir: values['backup-dir'], ...(backupImage === undefined ? {} : { backupImage }) };
}

import { managerFlags, MANAGER_FLAG_USAGE, parseCommandLine, FlagError, type ManagerFlags } from '@k8s-operators/controller-core';
import type { StoreServiceRef } from './store-service/store-endpoint.ts';

export { FlagError };

/** deploy/ names the service so (kustomize's namePrefix), in the operator's namespace. */
export const DEFAULT_STORE_SERVICE = 'postgresql-operator-backup-store';
/** Where deploy/ projects the operator's token for the backup store service. */
export const DEFAULT_STORE_TOKEN_FILE = '/var/run/secrets/exp.wheel.jp/backup-store/token';

export const USAGE = `Usage: postgresql-operator [flags]
  --backup-store-service=[NS/]NAME   the backup store service that serves the backup volume (default
                                     ${DEFAULT_STORE_SERVICE} in the operator's namespace)
  --backup-store-tls-secret=NAME     the Secret (beside the service) with its certificate, which the operator keeps
                                     (default <service>-tls)
  --backup-store-token-file=FILE     a token for the service's audience (default ${DEFAULT_STORE_TOKEN_FILE})
  --backup-image=IMAGE               the image backup Jobs run (default: the operator Pod's own image)
${MANAGER_FLAG_USAGE}`;

export interface OperatorFlags extends ManagerFlags {
  storeService: StoreServiceRef;
  storeTokenFile: string;
  /** Undefined: the image the operator's own Pod runs. */
  backupImage?: string;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Parses the command line (and the environment variables that stand in for --namespace and the service's namespace). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv, ownNamespace: () => string | undefined = () => env.POD_NAMESPACE): OperatorFlags | 'help' {
  const values = parseCommandLine(argv, {
    'backup-store-service': { type: 'string', default: DEFAULT_STORE_SERVICE },
    'backup-store-tls-secret': { type: 'string' },
    'backup-store-token-file': { type: 'string', default: DEFAULT_STORE_TOKEN_FILE },
    'backup-image': { type: 'string' },
  });
  if (values.help) return 'help';
  const manager = managerFlags(values, env);
  const parts = values['backup-store-service'].split('/');
  const [first = '', second] = parts;
  const name = second ?? first;
  const namespace = second === undefined ? ownNamespace() : first;
  if (parts.length > 2 || !NAME.test(name) || (namespace !== undefined && !NAME.test(namespace))) throw new FlagError(`--backup-store-service must be NAME or NAMESPACE/NAME, not "${values['backup-store-service']}"`);
  if (namespace === undefined) throw new FlagError('--backup-store-service: the operator does not know its own namespace (no POD_NAMESPACE): give NAMESPACE/NAME');
  const secretName = values['backup-store-tls-secret'] ?? `${name}-tls`;
  if (!NAME.test(secretName)) throw new FlagError(`--backup-store-tls-secret must be a Secret name, not "${secretName}"`);
  const storeTokenFile = values['backup-store-token-file'];
  if (!storeTokenFile.startsWith('/')) throw new FlagError(`--backup-store-token-file must be an absolute path, not "${storeTokenFile}"`);
  const backupImage = values['backup-image'];
  if (backupImage === '') throw new FlagError('--backup-image is empty: give an image reference, or leave it out to use the operator\'s own');
  return {
    ...manager,
    storeService: { namespace, name, secretName },
    storeTokenFile,
    ...(backupImage === undefined ? {} : { backupImage }),
  };
}

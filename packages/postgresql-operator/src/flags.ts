import { managerFlags, MANAGER_FLAG_USAGE, parseCommandLine, FlagError, type ManagerFlags } from '@k8s-operators/controller-core';
import type { BackupVolume } from './store-service/backup-volume.ts';
import type { StoreServiceRef } from './store-service/store-endpoint.ts';

export { FlagError };

/** deploy/ names the service so (kustomize's namePrefix), in the operator's namespace. */
export const DEFAULT_STORE_SERVICE = 'postgresql-operator-backup-store';
/** Where deploy/ projects the operator's token for the backup store service. */
export const DEFAULT_STORE_TOKEN_FILE = '/var/run/secrets/exp.wheel.jp/backup-store/token';

/** The backup volume's claim as deploy/ names it in the backup store's Deployment. */
export const DEFAULT_VOLUME_CLAIM = 'postgresql-operator-backups';
export const DEFAULT_VOLUME_SIZE = '10Gi';

export const USAGE = `Usage: postgresql-operator [flags]
  --backup-store-service=[NS/]NAME   the backup store service that serves the backup volume (default
                                     ${DEFAULT_STORE_SERVICE} in the operator's namespace)
  --backup-store-tls-secret=NAME     the Secret (beside the service) with its certificate, which the operator keeps
                                     (default <service>-tls)
  --backup-store-token-file=FILE     a token for the service's audience (default ${DEFAULT_STORE_TOKEN_FILE})
  --backup-volume-claim=NAME         the backup volume's claim (beside the service), which the operator makes if it is
                                     missing and keeps with its volume's reclaim policy Retain (default
                                     ${DEFAULT_VOLUME_CLAIM}; empty: the operator leaves the claim to you)
  --backup-volume-size=QUANTITY      a new claim's size (default ${DEFAULT_VOLUME_SIZE})
  --backup-volume-storage-class=NAME a new claim's StorageClass (default empty: the cluster's default class)
  --backup-image=IMAGE               the image backup Jobs run (default: the operator Pod's own image)
${MANAGER_FLAG_USAGE}`;

export interface OperatorFlags extends ManagerFlags {
  storeService: StoreServiceRef;
  storeTokenFile: string;
  /** Undefined: --backup-volume-claim= (empty), the claim is not the operator's to make. */
  backupVolume?: BackupVolume;
  /** Undefined: the image the operator's own Pod runs. */
  backupImage?: string;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// A StorageClass name (a DNS subdomain).
const CLASS_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
// resource.Quantity's syntax, as the chart's schema checks it.
const QUANTITY = /^([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[kMGTPE]|[eE][+-]?[0-9]+)?$/;

/** Parses the command line (and the environment variables that stand in for --namespace and the service's namespace). */
export function parseOperatorFlags(argv: readonly string[], env: NodeJS.ProcessEnv, ownNamespace: () => string | undefined = () => env.POD_NAMESPACE): OperatorFlags | 'help' {
  const values = parseCommandLine(argv, {
    'backup-store-service': { type: 'string', default: DEFAULT_STORE_SERVICE },
    'backup-store-tls-secret': { type: 'string' },
    'backup-store-token-file': { type: 'string', default: DEFAULT_STORE_TOKEN_FILE },
    'backup-volume-claim': { type: 'string', default: DEFAULT_VOLUME_CLAIM },
    'backup-volume-size': { type: 'string', default: DEFAULT_VOLUME_SIZE },
    'backup-volume-storage-class': { type: 'string', default: '' },
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
  const claimName = values['backup-volume-claim'];
  if (claimName !== '' && !NAME.test(claimName)) throw new FlagError(`--backup-volume-claim must be a claim name (or empty), not "${claimName}"`);
  const size = values['backup-volume-size'];
  if (!QUANTITY.test(size)) throw new FlagError(`--backup-volume-size must be a quantity such as 10Gi, not "${size}"`);
  const storageClassName = values['backup-volume-storage-class'];
  if (storageClassName !== '' && !CLASS_NAME.test(storageClassName)) throw new FlagError(`--backup-volume-storage-class must be a StorageClass name (or empty for the default), not "${storageClassName}"`);
  return {
    ...manager,
    storeService: { namespace, name, secretName },
    storeTokenFile,
    ...(claimName === '' ? {} : { backupVolume: { namespace, claimName, size, storageClassName } }),
    ...(backupImage === undefined ? {} : { backupImage }),
  };
}
